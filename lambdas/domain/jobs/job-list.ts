import type { Operations } from '#contract/types';
import { ApiError } from '#platform/errors';
import { cursorKeyRing } from '#platform/cursor-keys';
import { openCursor, sealCursor, type CursorScope } from '#platform/cursors';
import { instantRoundedUp } from '#platform/instants';
import type { Job } from './job';
import { jobIdAt, queryJobPositions, type JobListFilter } from './job-list-entries';
import { findJobs } from './job-store';

type ListJobsQuery = Operations['listJobs']['query'];

export interface JobPage {
  jobs: Job[];
  nextCursor: string | null;
}

/** A bound of the creation range, to the millisecond, or 400 naming the parameter. */
function creationBound(name: 'created_after' | 'created_before', value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  const instant = instantRoundedUp(value);
  if (instant === undefined) throw new ApiError('VALIDATION_FAILED', `${name} must be an ISO 8601 date-time`);
  return instant;
}

/** How a bound is written into the cursor's scope: the form cursors issued so far carry. */
const scopeValue = (instant: number | undefined) =>
  instant === undefined ? undefined : new Date(instant).toISOString();

function matches(job: Job, filter: JobListFilter): boolean {
  return (
    (filter.type === undefined || job.type === filter.type) &&
    (filter.status === undefined || job.status === filter.status) &&
    (filter.externalId === undefined || job.metadata?.external_id === filter.externalId)
  );
}

/**
 * One page of the organization's jobs, newest first, for any combination of filters: one Query
 * of the list entries of that combination (the creation range in its key condition) and one
 * consistent read of the rows. A row whose status moved between the two reads no longer
 * matches and is left out; the cursor still continues after it.
 */
export async function listJobs(organizationId: number, query: ListJobsQuery): Promise<JobPage> {
  const filter: JobListFilter = { type: query.type, status: query.status, externalId: query.metadata_external_id };
  const createdFromMs = creationBound('created_after', query.created_after);
  const createdBeforeMs = creationBound('created_before', query.created_before);
  const scope: CursorScope = {
    operation: 'listJobs',
    organizationId,
    filters: Object.fromEntries(
      Object.entries({
        type: query.type,
        status: query.status,
        metadata_external_id: query.metadata_external_id,
        created_after: scopeValue(createdFromMs),
        created_before: scopeValue(createdBeforeMs),
      }).filter((entry): entry is [string, string] => entry[1] !== undefined),
    ),
  };
  const keys = await cursorKeyRing();
  const after = query.cursor === undefined ? undefined : openCursor(keys, scope, query.cursor);
  const { positions, more } = await queryJobPositions({
    organizationId,
    filter,
    createdFromMs,
    createdBeforeMs,
    after,
    limit: query.limit,
  });
  const jobs = await findJobs(organizationId, positions.map(jobIdAt));
  const last = positions.at(-1);
  return {
    jobs: jobs.filter((job) => matches(job, filter)),
    nextCursor: more && last !== undefined ? sealCursor(keys, scope, last) : null,
  };
}
