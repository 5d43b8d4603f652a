import { DynamoDBDocumentClient, GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import type { JobStatus } from '#domain/jobs/job';
import { listPartition } from '#domain/jobs/job-list-entries';
import { findJob, JobAlreadyFinished } from '#domain/jobs/job-store';
import { createJob, finishJob, markProcessing, type JobOutcome } from '#domain/jobs/lifecycle';
import { TransactionRefused, type TransactionItem } from '#platform/transactions';
import { addedCounters, itemAt, keyOf, refusedAt } from './support/transactions';
import { CREATING_KEY, newVideoJob, SPLIT_INPUT } from './support/new-job';

/**
 * The job list's entries and the usage counts move in the same transactions as the job's
 * status: these tests read those transactions as DynamoDB would get them.
 */

process.env.TABLE_NAME = 'table';
process.env.AWS_REGION = 'us-east-1';

const dynamo = mockClient(DynamoDBDocumentClient);

const NOW = new Date('2026-03-01T12:00:00.000Z');
const KEY_PREFIX = CREATING_KEY;
const JOB_KEY = { pk: 'ORG#7', sk: 'JOB#video_job_1' };
/** The job was created the day before it is worked on: its counts stay on its creation day. */
const CREATED_AT = '2026-02-28T23:59:00.000Z';
const ORGANIZATION_DAY = 'USAGE#DAY#2026-02-28';
const KEY_DAY = `USAGE#KEY#${KEY_PREFIX}#2026-02-28`;

/** A video job item as the job store writes it now: created by a key, tracked. */
function storedJob(overrides: Record<string, unknown> = {}) {
  return {
    ...JOB_KEY,
    job_id: 'video_job_1',
    organization_id: 7,
    type: 'video',
    status: 'queued',
    progress: 0,
    created_at: CREATED_AT,
    updated_at: CREATED_AT,
    credits: { estimated: 10, charged: 10, refunded: 0 },
    input: { prompt: 'A lighthouse', duration_seconds: 5, aspect_ratio: '9:16', model: 'auto', mode: 'text_to_video' },
    created_by_key: KEY_PREFIX,
    tracked: true,
    ...overrides,
  };
}

/** A stored job as items written before keys were recorded, or before tracking, were: without those attributes. */
function storedJobWithout(names: readonly ('created_by_key' | 'tracked')[], overrides: Record<string, unknown> = {}) {
  const item: Record<string, unknown> = storedJob(overrides);
  for (const name of names) delete item[name];
  return item;
}

/** The attributes of a stored job with metadata.external_id. */
const withExternalId = (externalId: string) => ({
  metadata_json: JSON.stringify({ external_id: externalId }),
  external_id: externalId,
});

/** The partitions of a video job of organization 7 that carry its status, with or without its external id. */
function statusPartitions(status: JobStatus, externalId?: string): string[] {
  const partitions = [`ORG#7#JOBS#STATUS#${status}`, `ORG#7#JOBS#TYPE#video#STATUS#${status}`];
  if (externalId !== undefined) {
    partitions.push(listPartition(7, { externalId, status }), listPartition(7, { externalId, type: 'video', status }));
  }
  return partitions.sort();
}

/** Every transaction written, in order, as its items. */
function transactions(): TransactionItem[][] {
  return dynamo.commandCalls(TransactWriteCommand).map((call) => call.args[0].input.TransactItems ?? []);
}

/** The one transaction written. */
function transaction(): TransactionItem[] {
  const written = transactions();
  expect(written).toHaveLength(1);
  return written[0]!;
}

/** The job list entries a transaction puts and deletes, by partition. */
function listWrites(items: readonly TransactionItem[]) {
  const entries = items.filter((item) => keyOf(item).pk.startsWith('ORG#7#JOBS'));
  return {
    listed: entries
      .filter((item) => item.Put)
      .map((item) => keyOf(item).pk)
      .sort(),
    unlisted: entries
      .filter((item) => item.Delete)
      .map((item) => keyOf(item).pk)
      .sort(),
    /** Entries written some other way than a plain Put or Delete. */
    others: entries.filter((item) => !(item.Put || item.Delete)),
    positions: [...new Set(entries.map((item) => keyOf(item).sk))],
  };
}

/** What a transaction adds to each usage item, by sort key. */
function usageWrites(items: readonly TransactionItem[]): Record<string, Record<string, number>> {
  return Object.fromEntries(
    items
      .filter((item) => keyOf(item).sk.startsWith('USAGE#'))
      .map((item) => {
        expect(keyOf(item).pk).toBe('ORG#7');
        return [keyOf(item).sk, addedCounters(item.Update!)];
      }),
  );
}

beforeEach(() => {
  dynamo.reset();
});

describe('creating a job', () => {
  const request = newVideoJob();

  beforeEach(() => {
    dynamo.on(TransactWriteCommand).resolves({});
  });

  it('lists the job in its four partitions, sorted by creation, in the create transaction and on no index', async () => {
    const { job } = await createJob(request, NOW);

    const items = transaction();
    const entries = listWrites(items);
    expect(entries.listed).toEqual(
      ['ORG#7#JOBS', 'ORG#7#JOBS#TYPE#video', 'ORG#7#JOBS#STATUS#queued', 'ORG#7#JOBS#TYPE#video#STATUS#queued'].sort(),
    );
    expect(entries.unlisted).toEqual([]);
    expect(entries.others).toEqual([]);
    expect(entries.positions).toEqual([`${NOW.toISOString()}#${job.jobId}`]);
    const jobItem = itemAt(items, { pk: 'ORG#7', sk: `JOB#${job.jobId}` }).Put!.Item!;
    expect(jobItem).toMatchObject({ created_by_key: KEY_PREFIX, tracked: true });
    expect(Object.keys(jobItem).filter((name) => name.startsWith('gsi1'))).toEqual([]);
  });

  it('lists a job with metadata.external_id in the same four partitions and the four of its external id', async () => {
    const { job } = await createJob({ ...request, metadata: { external_id: 'order#1 ✓' } }, NOW);

    const entries = listWrites(transaction());
    const externalId = 'order#1 ✓';
    const expected = [
      'ORG#7#JOBS',
      'ORG#7#JOBS#TYPE#video',
      ...statusPartitions('queued'),
      listPartition(7, { externalId }),
      listPartition(7, { externalId, type: 'video' }),
      listPartition(7, { externalId, status: 'queued' }),
      listPartition(7, { externalId, type: 'video', status: 'queued' }),
    ].sort();
    expect(entries.listed).toEqual(expected);
    expect(new Set(expected).size).toBe(8);
    expect(entries.positions).toEqual([`${NOW.toISOString()}#${job.jobId}`]);
  });

  it("counts the job created, charged and queued in its organization's day and its key's day", async () => {
    await createJob(request, NOW);

    const counted = { video_created: 1, video_charged: 10, video_queued: 1 };
    expect(usageWrites(transaction())).toEqual({
      'USAGE#DAY#2026-03-01': counted,
      [`USAGE#KEY#${KEY_PREFIX}#2026-03-01`]: counted,
    });
  });

  it('counts a split job in counters of its own type', async () => {
    await createJob(
      {
        ...request,
        type: 'split',
        price: 4,
        input: SPLIT_INPUT,
        createdByKey: 'splitkey',
      },
      NOW,
    );

    const counted = { split_created: 1, split_charged: 4, split_queued: 1 };
    expect(usageWrites(transaction())).toEqual({
      'USAGE#DAY#2026-03-01': counted,
      'USAGE#KEY#splitkey#2026-03-01': counted,
    });
    expect(listWrites(transaction()).listed).toContain('ORG#7#JOBS#TYPE#split#STATUS#queued');
  });
});

describe('a job item in the table', () => {
  it('reads one written before keys were recorded as created by no key and untracked', async () => {
    const before = storedJobWithout(['created_by_key', 'tracked']);
    dynamo.on(GetCommand).resolves({ Item: before });

    await expect(findJob(7, 'video_job_1')).resolves.toMatchObject({ createdByKey: null, tracked: false });
  });
});

describe('starting a job: queued → processing', () => {
  it.each([
    ['without an external id', {}, undefined],
    ['with an external id', withExternalId('order-1'), 'order-1'],
  ])(
    'moves the status entries of a job %s and its counts from queued to processing, while it is still queued',
    async (_, attributes, externalId) => {
      dynamo.on(GetCommand).resolves({ Item: storedJob(attributes) });
      dynamo.on(TransactWriteCommand).resolves({});

      const job = await markProcessing(7, 'video_job_1', NOW);

      expect(job).toMatchObject({ status: 'processing', updatedAt: NOW.toISOString() });
      const items = transaction();
      expect(itemAt(items, JOB_KEY).Update).toMatchObject({
        ConditionExpression: '#status = :queued',
        ExpressionAttributeValues: { ':processing': 'processing', ':queued': 'queued' },
      });
      const entries = listWrites(items);
      expect(entries.unlisted).toEqual(statusPartitions('queued', externalId));
      expect(entries.listed).toEqual(statusPartitions('processing', externalId));
      expect(entries.positions).toEqual([`${CREATED_AT}#video_job_1`]);
      const moved = { video_queued: -1, video_processing: 1 };
      expect(usageWrites(items)).toEqual({ [ORGANIZATION_DAY]: moved, [KEY_DAY]: moved });
    },
  );

  it('answers a job already processing as it is, writing nothing (a retried step)', async () => {
    dynamo.on(GetCommand).resolves({ Item: storedJob({ status: 'processing', progress: 30 }) });

    await expect(markProcessing(7, 'video_job_1', NOW)).resolves.toMatchObject({ status: 'processing', progress: 30 });
    expect(transactions()).toEqual([]);
  });

  it.each(['completed', 'failed', 'cancelled', 'expired'])(
    'refuses a job that has ended (%s) with JobAlreadyFinished, writing nothing',
    async (status) => {
      dynamo.on(GetCommand).resolves({ Item: storedJob({ status }) });

      await expect(markProcessing(7, 'video_job_1', NOW)).rejects.toBeInstanceOf(JobAlreadyFinished);
      expect(transactions()).toEqual([]);
    },
  );

  it('reads a job again after a refused start, and answers it processing without writing twice', async () => {
    dynamo
      .on(GetCommand)
      .resolvesOnce({ Item: storedJob() })
      .resolves({ Item: storedJob({ status: 'processing' }) });
    dynamo.on(TransactWriteCommand).callsFake(refusedAt(JOB_KEY));

    await expect(markProcessing(7, 'video_job_1', NOW)).resolves.toMatchObject({ status: 'processing' });
    expect(dynamo.commandCalls(GetCommand)).toHaveLength(2);
    expect(transactions()).toHaveLength(1);
  });

  it('refuses with JobAlreadyFinished a job that a refused start finds ended', async () => {
    dynamo
      .on(GetCommand)
      .resolvesOnce({ Item: storedJob() })
      .resolves({ Item: storedJob({ status: 'failed' }) });
    dynamo.on(TransactWriteCommand).callsFake(refusedAt(JOB_KEY));

    await expect(markProcessing(7, 'video_job_1', NOW)).rejects.toBeInstanceOf(JobAlreadyFinished);
    expect(transactions()).toHaveLength(1);
  });

  it('moves nothing but the status of an untracked job, as long as it is still untracked', async () => {
    const untracked = storedJobWithout(['tracked']);
    dynamo.on(GetCommand).resolves({ Item: untracked });
    dynamo.on(TransactWriteCommand).resolves({});

    await markProcessing(7, 'video_job_1', NOW);

    const items = transaction();
    expect(items.map(keyOf)).toEqual([JOB_KEY]);
    expect(items[0]!.Update!.ConditionExpression).toBe('#status = :queued AND attribute_not_exists(tracked)');
  });

  it('starts again, moving entries and counts, a job the migration tracked after it was read', async () => {
    const untracked = storedJobWithout(['tracked']);
    dynamo.on(GetCommand).resolvesOnce({ Item: untracked }).resolves({ Item: storedJob() });
    dynamo.on(TransactWriteCommand).callsFakeOnce(refusedAt(JOB_KEY)).resolves({});

    await expect(markProcessing(7, 'video_job_1', NOW)).resolves.toMatchObject({ status: 'processing' });

    const [, retry, ...more] = transactions();
    expect(more).toEqual([]);
    expect(itemAt(retry!, JOB_KEY).Update!.ConditionExpression).toBe('#status = :queued');
    expect(listWrites(retry!).listed).toEqual(statusPartitions('processing'));
    expect(usageWrites(retry!)).toEqual({
      [ORGANIZATION_DAY]: { video_queued: -1, video_processing: 1 },
      [KEY_DAY]: { video_queued: -1, video_processing: 1 },
    });
  });

  it("counts a tracked job created before keys were recorded in its organization's day alone", async () => {
    const keyless = storedJobWithout(['created_by_key']);
    dynamo.on(GetCommand).resolves({ Item: keyless });
    dynamo.on(TransactWriteCommand).resolves({});

    await markProcessing(7, 'video_job_1', NOW);

    expect(usageWrites(transaction())).toEqual({ [ORGANIZATION_DAY]: { video_queued: -1, video_processing: 1 } });
  });
});

describe('finishing a job', () => {
  const completed: JobOutcome = { status: 'completed', outputAssetId: null, outputs: [] };
  const failed: JobOutcome = { status: 'failed', error: { code: 'RENDER_FAILED', message: 'No video.' } };

  it('moves the status entries from the status it read to the terminal one, counting no refund on completion', async () => {
    dynamo.on(GetCommand).resolves({ Item: storedJob({ status: 'processing', ...withExternalId('order-1') }) });
    dynamo.on(TransactWriteCommand).resolves({});

    await finishJob(7, 'video_job_1', completed, NOW);

    const items = transaction();
    expect(itemAt(items, JOB_KEY).Update!.ExpressionAttributeValues).toMatchObject({
      ':seen': 'processing',
      ':status': 'completed',
    });
    const entries = listWrites(items);
    expect(entries.unlisted).toEqual(statusPartitions('processing', 'order-1'));
    expect(entries.listed).toEqual(statusPartitions('completed', 'order-1'));
    expect(entries.positions).toEqual([`${CREATED_AT}#video_job_1`]);
    const moved = { video_processing: -1, video_completed: 1 };
    expect(usageWrites(items)).toEqual({ [ORGANIZATION_DAY]: moved, [KEY_DAY]: moved });
  });

  const expired: JobOutcome = { status: 'expired', error: { code: 'JOB_TIMED_OUT', message: 'Too long.' } };

  it.each([
    ['queued', 'failed', failed],
    ['processing', 'failed', failed],
    ['processing', 'expired', expired],
  ] as const)('counts the refund of a %s job that ends %s', async (from, _, outcome) => {
    dynamo.on(GetCommand).resolves({ Item: storedJob({ status: from }) });
    dynamo.on(TransactWriteCommand).resolves({});

    await finishJob(7, 'video_job_1', outcome, NOW);

    const items = transaction();
    expect(listWrites(items).unlisted).toEqual(statusPartitions(from));
    expect(listWrites(items).listed).toEqual(statusPartitions(outcome.status));
    const moved = { [`video_${from}`]: -1, [`video_${outcome.status}`]: 1, video_refunded: 10 };
    expect(usageWrites(items)).toEqual({ [ORGANIZATION_DAY]: moved, [KEY_DAY]: moved });
  });

  it('retries a finish refused because the job moved from queued to processing, from processing', async () => {
    dynamo
      .on(GetCommand)
      .resolvesOnce({ Item: storedJob({ status: 'queued' }) })
      .resolves({ Item: storedJob({ status: 'processing' }) });
    dynamo.on(TransactWriteCommand).callsFakeOnce(refusedAt(JOB_KEY)).resolves({});

    await finishJob(7, 'video_job_1', failed, NOW);

    const [first, retry, ...more] = transactions();
    expect(more).toEqual([]);
    expect(itemAt(first!, JOB_KEY).Update!.ExpressionAttributeValues).toMatchObject({ ':seen': 'queued' });
    expect(itemAt(retry!, JOB_KEY).Update!.ExpressionAttributeValues).toMatchObject({ ':seen': 'processing' });
    expect(listWrites(retry!).unlisted).toEqual(statusPartitions('processing'));
    expect(listWrites(retry!).listed).toEqual(statusPartitions('failed'));
    const moved = { video_processing: -1, video_failed: 1, video_refunded: 10 };
    expect(usageWrites(retry!)).toEqual({ [ORGANIZATION_DAY]: moved, [KEY_DAY]: moved });
  });

  it('gives up, naming the job, when every attempt is refused', async () => {
    dynamo.on(GetCommand).resolves({ Item: storedJob({ status: 'processing' }) });
    dynamo.on(TransactWriteCommand).callsFake(refusedAt(JOB_KEY));

    const refusal = finishJob(7, 'video_job_1', completed, NOW);

    await expect(refusal).rejects.toBeInstanceOf(TransactionRefused);
    await expect(refusal).rejects.toMatchObject({ reasons: { job: { code: 'ConditionalCheckFailed' } } });
    expect(transactions()).toHaveLength(4);
  });

  it('writes no list entries or usage counts when it finishes an untracked job', async () => {
    const untracked = storedJobWithout(['tracked'], { status: 'processing', ...withExternalId('order-1') });
    dynamo.on(GetCommand).resolves({ Item: untracked });
    dynamo.on(TransactWriteCommand).resolves({});

    await finishJob(7, 'video_job_1', failed, NOW);

    const items = transaction();
    expect(listWrites(items)).toMatchObject({ listed: [], unlisted: [], others: [] });
    expect(usageWrites(items)).toEqual({});
    expect(items.map(keyOf)).toEqual([
      JOB_KEY,
      { pk: 'ORG#7', sk: 'ORG' },
      { pk: 'ORG#7', sk: expect.stringMatching(/^EVENT#/) },
    ]);
    expect(items[0]!.Update!.ConditionExpression).toBe('#status = :seen AND attribute_not_exists(tracked)');
  });

  it('finishes again, moving entries and counts, a job the migration tracked after it was read', async () => {
    const untracked = storedJobWithout(['tracked'], { status: 'processing' });
    dynamo
      .on(GetCommand)
      .resolvesOnce({ Item: untracked })
      .resolves({ Item: storedJob({ status: 'processing' }) });
    dynamo.on(TransactWriteCommand).callsFakeOnce(refusedAt(JOB_KEY)).resolves({});

    await finishJob(7, 'video_job_1', completed, NOW);

    const [first, retry, ...more] = transactions();
    expect(more).toEqual([]);
    expect(usageWrites(first!)).toEqual({});
    expect(itemAt(retry!, JOB_KEY).Update!.ConditionExpression).toBe('#status = :seen');
    expect(listWrites(retry!).unlisted).toEqual(statusPartitions('processing'));
    expect(listWrites(retry!).listed).toEqual(statusPartitions('completed'));
    const moved = { video_processing: -1, video_completed: 1 };
    expect(usageWrites(retry!)).toEqual({ [ORGANIZATION_DAY]: moved, [KEY_DAY]: moved });
  });
});
