import fc from 'fast-check';
import type { JobStatus, JobType } from '#domain/jobs/job';
import {
  jobListStatusChange,
  listPartition,
  listPosition,
  newJobListEntries,
  type JobListFilter,
  type ListedJob,
} from '#domain/jobs/job-list-entries';
import type { TransactionItem } from '#platform/transactions';
import { keyOf } from './support/transactions';

process.env.TABLE_NAME = 'table';

// Records keyed by the unions: a new status or type fails the type check until it is listed here.
const STATUS_NAMES: Record<JobStatus, true> = {
  queued: true,
  processing: true,
  completed: true,
  failed: true,
  cancelled: true,
  expired: true,
};
const TYPE_NAMES: Record<JobType, true> = { video: true, split: true };
const STATUSES = Object.keys(STATUS_NAMES) as JobStatus[];
const TYPES = Object.keys(TYPE_NAMES) as JobType[];

/** External ids as clients may send them: any text up to 255 characters, often with `#` and beyond the BMP. */
const externalIds = fc.oneof(
  fc.string({ maxLength: 255, unit: 'binary' }),
  fc.string({ maxLength: 255, unit: fc.constantFrom('#', 'a', 'Z', '0', ' ', 'é', '✓', '😀', '\u0000') }),
);

const jobs: fc.Arbitrary<ListedJob> = fc.record(
  {
    organizationId: fc.integer({ min: 1, max: 2 ** 31 - 1 }),
    type: fc.constantFrom(...TYPES),
    jobId: fc.stringMatching(/^[0-9a-z]{26}$/),
    createdAt: fc
      .date({
        min: new Date('2020-01-01T00:00:00.000Z'),
        max: new Date('2099-12-31T23:59:59.999Z'),
        noInvalidDate: true,
      })
      .map((date) => date.toISOString()),
    externalId: externalIds,
  },
  { requiredKeys: ['organizationId', 'type', 'jobId', 'createdAt'] },
);

const statuses = fc.constantFrom(...STATUSES);

/** Whether the list answers the job, in `status`, to a query with this filter. */
function matches(job: ListedJob, status: JobStatus, filter: JobListFilter): boolean {
  return (
    (filter.type === undefined || filter.type === job.type) &&
    (filter.status === undefined || filter.status === status) &&
    (filter.externalId === undefined || filter.externalId === job.externalId)
  );
}

/** Every filter the job in `status` matches: each field either absent or the job's own. */
function filtersMatching(job: ListedJob, status: JobStatus): JobListFilter[] {
  const externalIdChoices = job.externalId === undefined ? [undefined] : [undefined, job.externalId];
  return externalIdChoices.flatMap((externalId) =>
    [undefined, job.type].flatMap((type) => [undefined, status].map((s) => ({ externalId, type, status: s }))),
  );
}

const partitionsMatching = (job: ListedJob, status: JobStatus) =>
  new Set(filtersMatching(job, status).map((filter) => listPartition(job.organizationId, filter)));

/** The table as a set of entry keys. */
type Entries = Set<string>;
const entryId = (key: { pk: string; sk: string }) => `${key.pk}\n${key.sk}`;

/** Applies one transaction's entry writes, checking what DynamoDB and the list both need of them. */
function apply(entries: Entries, items: readonly TransactionItem[]) {
  const ids = items.map((item) => entryId(keyOf(item)));
  // DynamoDB refuses a transaction that names one item twice.
  expect(new Set(ids).size).toBe(ids.length);
  for (const item of items) {
    if (item.Delete) {
      // A move takes the job out of a partition it is in, never one it is not.
      expect(entries.has(entryId(keyOf(item)))).toBe(true);
      entries.delete(entryId(keyOf(item)));
    } else if (item.Put) {
      expect(item.Put.Item).toEqual(keyOf(item));
      entries.add(entryId(keyOf(item)));
    } else {
      throw new Error(`An entry write that is neither a Put nor a Delete: ${JSON.stringify(item)}`);
    }
  }
}

/** The partitions the job has an entry in. */
function partitionsOf(entries: Entries, job: ListedJob): Set<string> {
  const position = listPosition(job.createdAt, job.jobId);
  return new Set([...entries].map((id) => id.split('\n')).flatMap(([pk, sk]) => (sk === position && pk ? [pk] : [])));
}

describe('the entries of a new job', () => {
  it('are one Put per filter the job matches, each at its creation position, and nothing else', () => {
    fc.assert(
      fc.property(jobs, statuses, (job, status) => {
        const writes = Object.values(newJobListEntries(job, status));

        const expected = partitionsMatching(job, status);
        expect(expected.size).toBe(job.externalId === undefined ? 4 : 8);
        expect(writes).toHaveLength(expected.size);
        expect(new Set(writes.map((write) => keyOf(write).pk))).toEqual(expected);
        for (const write of writes) {
          expect(write.Put?.Item).toEqual({ pk: keyOf(write).pk, sk: listPosition(job.createdAt, job.jobId) });
        }
      }),
    );
  });

  it('answer a query of any filter exactly when the job matches it', () => {
    /** Ids that spell the job's id followed by what a partition of another filter adds to it. */
    const lookalikes = (job: ListedJob) =>
      fc
        .tuple(fc.constantFrom(undefined, ...TYPES), fc.constantFrom(undefined, ...STATUSES))
        .map(
          ([type, status]) =>
            `${job.externalId ?? ''}${type ? `#TYPE#${type}` : ''}${status ? `#STATUS#${status}` : ''}`,
        );
    const filters = (job: ListedJob) =>
      fc.record({
        organizationId: fc.constantFrom(job.organizationId, job.organizationId + 1),
        type: fc.constantFrom(undefined, ...TYPES),
        status: fc.constantFrom(undefined, ...STATUSES),
        externalId: fc.oneof(fc.constant(undefined), fc.constant(job.externalId), externalIds, lookalikes(job)),
      });
    fc.assert(
      fc.property(
        jobs.chain((job) => fc.tuple(fc.constant(job), statuses, filters(job))),
        ([job, status, { organizationId, ...filter }]) => {
          const partitions = new Set(Object.values(newJobListEntries(job, status)).map((write) => keyOf(write).pk));

          const listed = partitions.has(listPartition(organizationId, filter));
          expect(listed).toBe(organizationId === job.organizationId && matches(job, status, filter));
        },
      ),
    );
  });
});

describe('status changes of a listed job', () => {
  it('leave it in exactly the partitions its final status matches, and other jobs where they were', () => {
    fc.assert(
      fc.property(
        jobs,
        statuses,
        statuses,
        fc.array(statuses, { maxLength: 8 }),
        (job, first, otherStatus, changes) => {
          // Another job sharing every partition it can: same organization, type, external id and instant.
          const other = { ...job, jobId: `${job.jobId}0` };
          const entries: Entries = new Set();
          apply(entries, Object.values(newJobListEntries(other, otherStatus)));
          apply(entries, Object.values(newJobListEntries(job, first)));

          let status = first;
          for (const next of changes) {
            if (next === status) continue;
            apply(entries, Object.values(jobListStatusChange(job, status, next)));
            status = next;
            expect(partitionsOf(entries, job)).toEqual(partitionsMatching(job, status));
          }

          expect(partitionsOf(entries, job)).toEqual(partitionsMatching(job, status));
          const statusesListed = STATUSES.filter((s) =>
            partitionsOf(entries, job).has(listPartition(job.organizationId, { status: s })),
          );
          expect(statusesListed).toEqual([status]);
          expect(partitionsOf(entries, other)).toEqual(partitionsMatching(other, otherStatus));
        },
      ),
    );
  });
});
