import { BatchGetCommand, DynamoDBDocumentClient, QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import fc from 'fast-check';
import type { JobOf } from '#domain/jobs/job';
import { listJobs } from '#domain/jobs/job-list';
import { listPartition, listPosition } from '#domain/jobs/job-list-entries';
import { newJobPut } from '#domain/jobs/job-store';
import { sortableId } from '#platform/ids';

process.env.TABLE_NAME = 'table';
process.env.CURSOR_KEY_LOCAL = `local-1:${Buffer.from('a cursor key for the tests').toString('base64')}`;

const dynamo = mockClient(DynamoDBDocumentClient);

const ORGANIZATION = 7;
const LAST_FOUR_DIGIT_YEAR_MS = Date.parse('9999-12-31T23:59:59.999Z');
const FIRST_FOUR_DIGIT_YEAR_MS = Date.parse('0000-01-01T00:00:00.000Z');

const job = (createdMs: number): JobOf<'video'> => ({
  jobId: sortableId('video_job_'),
  organizationId: ORGANIZATION,
  type: 'video',
  status: 'completed',
  progress: 100,
  workStage: null,
  createdAt: new Date(createdMs).toISOString(),
  updatedAt: new Date(createdMs).toISOString(),
  credits: { estimated: 10, charged: 10, refunded: 0 },
  input: { prompt: 'A', duration_seconds: 5, aspect_ratio: '9:16', model: 'auto', mode: 'text_to_video' },
  metadata: null,
  outputAssetId: null,
  error: null,
  providerJobId: null,
  clipsCount: null,
  createdByKey: 'abcdefghjkmnpqrs',
  tracked: true,
});

/** Jobs of this year, and the first and last a position can record, at the edges of four-digit years. */
const JOBS = [
  ...['2026-03-01T12:00:00.000Z', '2026-03-01T12:00:00.001Z', '2026-06-30T23:59:59.999Z'].map(Date.parse),
  FIRST_FOUR_DIGIT_YEAR_MS,
  LAST_FOUR_DIGIT_YEAR_MS,
].map(job);

/**
 * The organization's list entries and job items, answering the Query and BatchGetItem the list
 * sends as DynamoDB would: sort keys compared as strings (these are ASCII, so as their bytes).
 */
function tableHolds(jobs: readonly JobOf<'video'>[]) {
  const partition = listPartition(ORGANIZATION, {});
  const positions = jobs.map((listed) => listPosition(listed.createdAt, listed.jobId));
  dynamo.on(QueryCommand).callsFake((input: QueryCommandInput) => {
    const values = input.ExpressionAttributeValues as Record<string, string>;
    const condition = input.KeyConditionExpression ?? '';
    if (values[':partition'] !== partition) return { Items: [] };
    const inRange = positions
      .filter((position) => !condition.includes(':from') || position >= (values[':from'] as string))
      .filter((position) => !condition.includes(':before') || position < (values[':before'] as string))
      .sort((a, b) => (a < b ? 1 : -1));
    return { Items: inRange.slice(0, input.Limit).map((sk) => ({ sk })) };
  });
  const items = new Map(jobs.map((listed) => [listed.jobId, newJobPut(listed).Put!.Item!]));
  dynamo.on(BatchGetCommand).callsFake(({ RequestItems }) => ({
    Responses: {
      table: (RequestItems.table.Keys as { sk: string }[]).map(({ sk }) => items.get(sk.replace(/^JOB#/, ''))),
    },
  }));
}

beforeEach(() => {
  dynamo.reset();
  tableHolds(JOBS);
});

/** The ids the list answers for a creation range, in one page. */
async function listed(query: { created_after?: string; created_before?: string }): Promise<string[]> {
  const page = await listJobs(ORGANIZATION, { ...query, limit: 100 });
  expect(page.nextCursor).toBeNull();
  return page.jobs.map((listedJob) => listedJob.jobId);
}

/** The jobs created in [after, before), newest first: what the list must answer. */
function createdWithin(afterMs = -Infinity, beforeMs = Infinity): string[] {
  return JOBS.filter((listedJob) => {
    const createdMs = Date.parse(listedJob.createdAt);
    return createdMs >= afterMs && createdMs < beforeMs;
  })
    .sort((a, b) => Date.parse(b.createdAt) - Date.parse(a.createdAt))
    .map((listedJob) => listedJob.jobId);
}

describe('GET /jobs creation range at the edges of four-digit years', () => {
  it.each([
    // Past the last millisecond of 9999: every job is before it, none after it.
    ['9999-12-31T23:59:59.9991Z', LAST_FOUR_DIGIT_YEAR_MS + 1],
    ['9999-12-31T23:00:00-01:00', LAST_FOUR_DIGIT_YEAR_MS + 1],
    ['9999-12-31T23:59:59-23:59', LAST_FOUR_DIGIT_YEAR_MS - 999 + (23 * 60 + 59) * 60_000],
    // The last millisecond itself, written two ways.
    ['9999-12-31T23:59:59.999Z', LAST_FOUR_DIGIT_YEAR_MS],
    ['9999-12-31T22:59:59.999-01:00', LAST_FOUR_DIGIT_YEAR_MS],
    // Before the first millisecond of year 0: every job is after it, none before it.
    ['0000-01-01T00:00:00+01:00', FIRST_FOUR_DIGIT_YEAR_MS - 3_600_000],
    ['0000-01-01T00:00:00Z', FIRST_FOUR_DIGIT_YEAR_MS],
    ['0000-01-01T00:00:00.0001Z', FIRST_FOUR_DIGIT_YEAR_MS + 1],
  ])('reads %s as the instant it names, as created_after and as created_before', async (text, instantMs) => {
    expect(await listed({ created_after: text })).toEqual(createdWithin(instantMs));
    expect(await listed({ created_before: text })).toEqual(createdWithin(-Infinity, instantMs));
  });

  it('answers exactly the jobs created in any range, whatever the years and offsets of its bounds', async () => {
    const offset = fc.constantFrom('Z', '+00:00', '-01:00', '+01:00', '-23:59', '+23:59', '+05:30');
    const instant = fc.oneof(
      fc.constantFrom(...JOBS.map((listedJob) => Date.parse(listedJob.createdAt))),
      fc.integer({ min: FIRST_FOUR_DIGIT_YEAR_MS - 2 * 86_400_000, max: LAST_FOUR_DIGIT_YEAR_MS + 2 * 86_400_000 }),
    );
    /**
     * The instant (a millisecond either side) written at the offset, with a digit past the
     * millisecond or not, which rounds it up to the next one. The text has a four-digit year; the
     * instant it names may lie beyond year 9999 or before year 0.
     */
    const bound = fc
      .tuple(instant, fc.integer({ min: -1, max: 1 }), offset, fc.boolean())
      .map(([ms, nudge, zone, finer]) => {
        const sign = zone[0] === '-' ? -1 : 1;
        const offsetMs = zone === 'Z' ? 0 : sign * (Number(zone.slice(1, 3)) * 60 + Number(zone.slice(4))) * 60_000;
        const localMs = ms + nudge + offsetMs;
        return {
          localMs,
          text: `${new Date(localMs).toISOString().slice(0, -1)}${finer ? '1' : ''}${zone}`,
          ms: ms + nudge + (finer ? 1 : 0),
        };
      })
      .filter(({ localMs }) => localMs >= FIRST_FOUR_DIGIT_YEAR_MS && localMs <= LAST_FOUR_DIGIT_YEAR_MS);
    await fc.assert(
      fc.asyncProperty(fc.option(bound), fc.option(bound), async (after, before) => {
        const query = { created_after: after?.text, created_before: before?.text };
        expect(await listed(query)).toEqual(createdWithin(after?.ms, before?.ms));
      }),
      { numRuns: 200 },
    );
  });
});
