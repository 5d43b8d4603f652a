import { DynamoDBDocumentClient, GetCommand, QueryCommand, type QueryCommandInput } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import fc from 'fast-check';
import type { EventType, Operations } from '#contract/types';
import { EVENTS_READ_PER_PAGE, getEvent, listEvents } from '#domain/events/event-list';
import { EVENT_RETENTION_DAYS, eventPut, newEvent, type EventBody, type EventPayload } from '#domain/events/events';
import { DAY_MS } from '#platform/instants';
import { ApiError } from '#platform/errors';
import { sortableId } from '#platform/ids';

process.env.TABLE_NAME = 'table';
process.env.CURSOR_KEY_LOCAL = `local-1:${Buffer.from('a cursor key for the tests').toString('base64')}`;

const dynamo = mockClient(DynamoDBDocumentClient);

const ORGANIZATION = 7;
const NOW = Date.parse('2026-11-25T12:00:00.000Z');
const RETENTION_MS = EVENT_RETENTION_DAYS * DAY_MS;

type StoredItem = Record<string, unknown> & { pk: string; sk: string; payload: EventPayload; expires_at: number };

/**
 * The table's event items and a Query over them as DynamoDB answers the one the list sends:
 * the key range, newest first, after the start key, `Limit` items evaluated, then the filter;
 * a LastEvaluatedKey whenever the limit stopped it. Every read is counted.
 */
class EventTable {
  readonly items: StoredItem[] = [];
  readonly reads: number[] = [];

  constructor() {
    dynamo.on(QueryCommand).callsFake((input: QueryCommandInput) => this.query(input));
    dynamo.on(GetCommand).callsFake(({ Key }: { Key: { pk: string; sk: string } }) => ({
      Item: this.items.find((item) => item.pk === Key.pk && item.sk === Key.sk),
    }));
  }

  add(item: StoredItem) {
    this.items.push(item);
  }

  private query(input: QueryCommandInput) {
    const values = input.ExpressionAttributeValues as Record<string, string | number>;
    const start = input.ExclusiveStartKey?.sk as string | undefined;
    // What DynamoDB would refuse, or what would make it answer otherwise than this table does.
    if (input.ScanIndexForward !== false || input.ConsistentRead !== true || !(Number(input.Limit) > 0)) {
      throw new Error(`A Query this table does not answer: ${JSON.stringify(input)}`);
    }
    if (start !== undefined && !(start >= values[':from']! && start <= values[':to']!)) {
      throw new Error('The provided starting key is outside query boundaries based on provided conditions');
    }
    const inRange = this.items
      .filter((item) => item.pk === values[':partition'] && item.sk >= values[':from']! && item.sk <= values[':to']!)
      .filter((item) => start === undefined || item.sk < start)
      .sort((a, b) => (a.sk < b.sk ? 1 : -1));
    const evaluated = inRange.slice(0, input.Limit);
    this.reads.push(evaluated.length);
    const selected = evaluated.filter(
      (item) =>
        item.expires_at > Number(values[':retained']) &&
        (values[':type'] === undefined || item.type === values[':type']) &&
        (values[':job_id'] === undefined || jobIdOf(item.payload) === values[':job_id']),
    );
    const last = evaluated.at(-1);
    return {
      Items: selected.map((item) => ({ payload: item.payload })),
      ScannedCount: evaluated.length,
      ...(evaluated.length === input.Limit && last ? { LastEvaluatedKey: { pk: last.pk, sk: last.sk } } : {}),
    };
  }
}

function jobIdOf(payload: EventPayload): string | undefined {
  const data = payload.data as { job?: { id?: string } };
  return data.job?.id;
}

function storedEvent(organizationId: number, body: EventBody, createdAtMs: number): StoredItem {
  return eventPut(newEvent(organizationId, body, new Date(createdAtMs))).Put!.Item as StoredItem;
}

const jobCompleted = (jobId: string): EventBody => ({
  type: 'job.completed',
  data: {
    job: { id: jobId, type: 'video', status: 'completed', result_url: `/api/v1/developer/video-jobs/${jobId}/result` },
  },
});
const jobFailed = (jobId: string): EventBody => ({
  type: 'job.failed',
  data: { job: { id: jobId, type: 'split', status: 'failed', error: { code: 'SPLIT_FAILED', message: 'No luck' } } },
});
const webhookTest: EventBody = { type: 'webhook.test', data: { webhook_id: 'webhook_01j0000000000000000000000a' } };

/** Jobs created before the window the events fall in, and one in it, ten days ago. */
const JOBS = [...[1, 2, 3].map((hours) => RETENTION_MS + hours * 3_600_000), 10 * DAY_MS].map((ageMs) => ({
  id: sortableId('video_job_', NOW - ageMs),
  ageMs,
}));
const JOB_IDS = JOBS.map((job) => job.id);
const EVENT_TYPES: EventType[] = ['job.completed', 'job.failed', 'webhook.test'];

/**
 * Events of the last 31 days (the oldest past their retention, some at its edge), of every type,
 * about a few jobs, never before their job (some in its very millisecond).
 */
const events = fc.array(
  fc
    .record({
      ageMs: fc.oneof(
        fc.integer({ min: 0, max: 31 * DAY_MS }),
        fc.integer({ min: RETENTION_MS - 3000, max: RETENTION_MS + 3000 }),
        fc.constant(Infinity),
      ),
      type: fc.constantFrom(...EVENT_TYPES),
      job: fc.constantFrom(...JOBS),
    })
    .map(({ ageMs, type, job }) => ({ ageMs: Math.min(ageMs, job.ageMs), type, job: job.id })),
  { maxLength: 60 },
);

const instants = fc.integer({ min: NOW - 32 * DAY_MS, max: NOW + DAY_MS }).map((ms) => new Date(ms).toISOString());

const filters = fc.record(
  {
    type: fc.constantFrom(...EVENT_TYPES),
    job_id: fc.constantFrom(...JOB_IDS, sortableId('split_job_', NOW)),
    created_after: instants,
    created_before: instants,
  },
  { requiredKeys: [] },
);

type ListQuery = Operations['listEvents']['query'];

function bodyOf(type: EventType, jobId: string): EventBody {
  return type === 'job.completed' ? jobCompleted(jobId) : type === 'job.failed' ? jobFailed(jobId) : webhookTest;
}

async function listAll(query: Omit<ListQuery, 'limit'>, limits: number[], table: EventTable) {
  const listed: EventPayload[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < 1000; page += 1) {
    const limit = limits[page % limits.length]!;
    const readsBefore = table.reads.length;
    const result = await listEvents(ORGANIZATION, { ...query, limit, ...(cursor ? { cursor } : {}) }, NOW);
    const itemsRead = table.reads.slice(readsBefore).reduce((sum, reads) => sum + reads, 0);
    expect(result.payloads.length).toBeLessThanOrEqual(limit);
    expect(itemsRead).toBeLessThanOrEqual(EVENTS_READ_PER_PAGE);
    if (query.type === undefined && query.job_id === undefined && result.nextCursor !== null) {
      expect(result.payloads).toHaveLength(limit);
    }
    listed.push(...result.payloads);
    if (result.nextCursor === null) return listed;
    cursor = result.nextCursor;
  }
  throw new Error('The listing never ended');
}

beforeEach(() => {
  dynamo.reset();
});

describe('listing events', () => {
  it('pages through exactly the retained events each filter selects, newest first, each once, with any page sizes', async () => {
    await fc.assert(
      fc.asyncProperty(
        events,
        filters,
        fc.array(fc.integer({ min: 1, max: 100 }), { minLength: 1, maxLength: 4 }),
        async (made, query, limits) => {
          dynamo.reset();
          const table = new EventTable();
          for (const event of made)
            table.add(storedEvent(ORGANIZATION, bodyOf(event.type, event.job), NOW - event.ageMs));
          // Another organization's events, at the same instants, are never listed.
          for (const event of made)
            table.add(storedEvent(ORGANIZATION + 1, bodyOf(event.type, event.job), NOW - event.ageMs));
          const after = query.created_after === undefined ? -Infinity : Date.parse(query.created_after);
          const before = query.created_before === undefined ? Infinity : Date.parse(query.created_before);
          const expected = table.items
            .filter(
              (item) =>
                item.pk === `ORG#${ORGANIZATION}` &&
                item.expires_at * 1000 > NOW &&
                (query.type === undefined || item.payload.type === query.type) &&
                (query.job_id === undefined || jobIdOf(item.payload) === query.job_id) &&
                Date.parse(item.payload.created_at) >= after &&
                Date.parse(item.payload.created_at) < before,
            )
            .sort((a, b) => (a.sk < b.sk ? 1 : -1))
            .map((item) => item.payload);

          expect(await listAll(query, limits, table)).toEqual(expected);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('reads at most EVENTS_READ_PER_PAGE items a page when a filter matches few, and still finds every match', async () => {
    const table = new EventTable();
    const total = 2500;
    for (let index = 0; index < total; index += 1) {
      const body = index === 10 || index === 2400 ? jobFailed(JOB_IDS[0]!) : jobCompleted(JOB_IDS[1]!);
      table.add(storedEvent(ORGANIZATION, body, NOW - index * 60_000));
    }
    const pages: number[] = [];
    let cursor: string | undefined;
    const found: EventPayload[] = [];
    do {
      const page = await listEvents(
        ORGANIZATION,
        { type: 'job.failed', limit: 25, ...(cursor ? { cursor } : {}) },
        NOW,
      );
      pages.push(page.payloads.length);
      found.push(...page.payloads);
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(found.map((payload) => jobIdOf(payload))).toEqual([JOB_IDS[0], JOB_IDS[0]]);
    expect(pages).toEqual([1, 0, 1]);
    expect(table.reads.reduce((sum, reads) => sum + reads, 0)).toBeLessThanOrEqual(total + pages.length * 26);
  });

  it('reads one more event than the page holds when no filter discards any', async () => {
    const table = new EventTable();
    for (let index = 0; index < 60; index += 1) table.add(storedEvent(ORGANIZATION, webhookTest, NOW - index * 1000));
    const page = await listEvents(ORGANIZATION, { limit: 25 }, NOW);
    expect(page.payloads).toHaveLength(25);
    expect(page.nextCursor).not.toBeNull();
    expect(table.reads).toEqual([26]);
  });

  it('answers a range that holds nothing, a reversed one included, with an empty last page and no read', async () => {
    new EventTable();
    for (const query of [
      { created_after: '2026-11-20T00:00:00Z', created_before: '2026-11-19T00:00:00Z' },
      { created_before: '2026-10-01T00:00:00Z' },
      { created_after: '2026-11-26T00:00:00Z', created_before: '2026-11-26T00:00:00Z' },
    ]) {
      expect(await listEvents(ORGANIZATION, { ...query, limit: 25 }, NOW)).toEqual({ payloads: [], nextCursor: null });
    }
    expect(dynamo.commandCalls(QueryCommand)).toHaveLength(0);
  });

  it('refuses a cursor reused with other filters, by another organization, or altered, with 400 VALIDATION_FAILED', async () => {
    const table = new EventTable();
    for (let index = 0; index < 5; index += 1)
      table.add(storedEvent(ORGANIZATION, jobCompleted(JOB_IDS[0]!), NOW - index));
    const filters = { type: 'job.completed', created_after: '2026-11-01T00:00:00Z' } as const;
    const first = await listEvents(ORGANIZATION, { ...filters, limit: 2 }, NOW);
    const cursor = first.nextCursor!;
    const refusals = [
      listEvents(ORGANIZATION, { ...filters, type: 'job.failed', limit: 2, cursor }, NOW),
      listEvents(ORGANIZATION, { type: 'job.completed', limit: 2, cursor }, NOW),
      listEvents(ORGANIZATION, { ...filters, job_id: JOB_IDS[0], limit: 2, cursor }, NOW),
      listEvents(ORGANIZATION, { ...filters, created_before: '2026-12-01T00:00:00Z', limit: 2, cursor }, NOW),
      listEvents(ORGANIZATION + 1, { ...filters, limit: 2, cursor }, NOW),
      listEvents(ORGANIZATION, { ...filters, limit: 2, cursor: `${cursor}x` }, NOW),
    ];
    for (const refusal of refusals) {
      await expect(refusal).rejects.toMatchObject({ code: 'VALIDATION_FAILED', status: 400 });
    }
    // The same instant written at another offset is the same filter, and the limit may change.
    const next = await listEvents(
      ORGANIZATION,
      { type: 'job.completed', created_after: '2026-11-01T01:00:00+01:00', limit: 3, cursor },
      NOW,
    );
    expect(next.payloads).toHaveLength(3);
  });

  it('ends the listing when the retention has passed the position a cursor holds', async () => {
    const table = new EventTable();
    const createdAt = NOW - RETENTION_MS + 60_000;
    for (let index = 0; index < 3; index += 1) table.add(storedEvent(ORGANIZATION, webhookTest, createdAt - index));
    const first = await listEvents(ORGANIZATION, { limit: 1 }, NOW);
    expect(first.payloads).toHaveLength(1);
    const later = await listEvents(ORGANIZATION, { limit: 1, cursor: first.nextCursor! }, NOW + 120_000);
    expect(later).toEqual({ payloads: [], nextCursor: null });
  });
});

describe('getting an event', () => {
  it('answers the payload as delivered while it is retained, and 404 EVENT_NOT_FOUND from its expiry on', async () => {
    const table = new EventTable();
    const item = storedEvent(ORGANIZATION, jobFailed(JOB_IDS[2]!), NOW - DAY_MS);
    table.add(item);
    expect(await getEvent(ORGANIZATION, item.payload.id, NOW)).toEqual(item.payload);
    await expect(getEvent(ORGANIZATION, item.payload.id, item.expires_at * 1000)).rejects.toMatchObject({
      code: 'EVENT_NOT_FOUND',
      status: 404,
    });
  });

  it("answers 404 for another organization's event and for ids not of ours, reading nothing for the latter", async () => {
    const table = new EventTable();
    const item = storedEvent(ORGANIZATION, webhookTest, NOW);
    table.add(item);
    await expect(getEvent(ORGANIZATION + 1, item.payload.id, NOW)).rejects.toBeInstanceOf(ApiError);
    const reads = dynamo.commandCalls(GetCommand).length;
    for (const id of ['evt_', 'evt_x', `evt_${'u'.repeat(26)}`, `evt_${'a'.repeat(3000)}`]) {
      await expect(getEvent(ORGANIZATION, id, NOW)).rejects.toMatchObject({ code: 'EVENT_NOT_FOUND' });
    }
    expect(dynamo.commandCalls(GetCommand)).toHaveLength(reads);
  });
});
