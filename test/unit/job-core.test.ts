import { TransactionCanceledException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import type { JobType } from '#contract/types';
import { generatedAssetPut } from '#domain/assets/asset-store';
import type { JobOutput } from '#domain/jobs/lifecycle';
import { createJob, finishJob } from '#domain/jobs/lifecycle';
import { TEAM_LIMITS } from '#domain/access/organizations';
import { requestFingerprint } from '#platform/idempotency';
import { TransactionRefused } from '#platform/transactions';
import { captureMetrics, publishedValues, type MetricDocument } from './support/metrics';
import { itemAt, keyOf, refusedAt } from './support/transactions';
import { newVideoJob } from './support/new-job';

process.env.TABLE_NAME = 'table';
process.env.AWS_REGION = 'us-east-1';

const dynamo = mockClient(DynamoDBDocumentClient);

const NOW = new Date('2026-03-01T12:00:00.000Z');

/** A stored job item, as the job store writes it. */
function jobItem(type: JobType, overrides: Record<string, unknown> = {}) {
  const input =
    type === 'video'
      ? { prompt: 'A lighthouse', duration_seconds: 5, aspect_ratio: '9:16', model: 'auto', mode: 'text_to_video' }
      : { source_asset_id: 'asset_source' };
  return {
    job_id: `${type}_job_1`,
    organization_id: 7,
    type,
    status: 'processing',
    progress: 40,
    created_at: '2026-03-01T11:59:00.000Z',
    updated_at: '2026-03-01T11:59:30.000Z',
    credits: { estimated: 10, charged: 10, refunded: 0 },
    input,
    metadata: null,
    created_by_key: 'abcdefghjkmnpqrs',
    tracked: true,
    ...overrides,
  };
}

const JOB_KEY = { pk: 'ORG#7', sk: 'JOB#video_job_1' };
const ORGANIZATION_KEY = { pk: 'ORG#7', sk: 'ORG' };

function output(name: string, assetId: string): JobOutput {
  return {
    name,
    write: generatedAssetPut({
      organizationId: 7,
      assetId,
      filename: `${assetId}.mp4`,
      contentType: 'video/mp4',
      sizeBytes: 1000,
      metadata: null,
      createdAt: NOW.toISOString(),
      objectKey: `assets/7/${assetId}`,
    }),
  };
}

/** The items of the one transaction written, in the order they were sent. */
function writtenItems() {
  const calls = dynamo.commandCalls(TransactWriteCommand);
  expect(calls).toHaveLength(1);
  return calls[0]!.args[0].input.TransactItems ?? [];
}

/** What DynamoDB throws when concurrent transactions touch the same item: the first item conflicted. */
function conflicted() {
  return new TransactionCanceledException({
    message: 'Transaction cancelled',
    $metadata: {},
    CancellationReasons: [{ Code: 'TransactionConflict' }, { Code: 'None' }, { Code: 'None' }],
  });
}

/** The items of the transaction that are neither list entries nor usage counts, in order. */
function withoutTracking(items: ReturnType<typeof writtenItems>) {
  return items.filter((item) => {
    const { pk, sk } = keyOf(item);
    return !pk.includes('#JOBS') && !sk.startsWith('USAGE#');
  });
}

beforeEach(() => {
  dynamo.reset();
});

describe('finishing a job', () => {
  it('writes the terminal state, the released slot, the event and every output in one transaction, and says it ended the job', async () => {
    dynamo.on(GetCommand).resolves({ Item: jobItem('video') });
    dynamo.on(TransactWriteCommand).resolves({});

    const ended = await finishJob(
      7,
      'video_job_1',
      {
        status: 'completed',
        outputAssetId: 'asset_video',
        outputs: [output('video', 'asset_video'), output('thumbnail', 'asset_thumbnail')],
      },
      NOW,
    );

    expect(ended).toBe(true);
    const [job, organization, event, video, thumbnail, ...rest] = withoutTracking(writtenItems());
    expect(rest).toEqual([]);
    expect(job!.Update).toMatchObject({
      Key: JOB_KEY,
      // Conditional on the status it was read in, so the counts move from the right one.
      ConditionExpression: '#status = :seen',
      ExpressionAttributeValues: expect.objectContaining({
        ':seen': 'processing',
        ':status': 'completed',
        ':asset': 'asset_video',
      }),
    });
    expect(organization!.Update).toMatchObject({
      Key: ORGANIZATION_KEY,
      UpdateExpression: 'SET active_video_jobs = if_not_exists(active_video_jobs, :one) - :one',
    });
    expect(event!.Put!.Item).toMatchObject({
      type: 'job.completed',
      payload: {
        type: 'job.completed',
        data: {
          job: {
            id: 'video_job_1',
            type: 'video',
            status: 'completed',
            result_url: '/api/v1/developer/video-jobs/video_job_1/result',
            asset_id: 'asset_video',
          },
        },
      },
    });
    expect(event!.Put!.Item!.payload.data.job).not.toHaveProperty('clips_url');
    expect(video!.Put).toMatchObject({
      Item: { sk: 'ASSET#asset_video', status: 'uploaded' },
      ConditionExpression: 'attribute_not_exists(pk)',
    });
    expect(thumbnail!.Put!.Item).toMatchObject({ sk: 'ASSET#asset_thumbnail', object_key: 'assets/7/asset_thumbnail' });
  });

  it("chooses the event by job type: a split job's completion points at its clips", async () => {
    dynamo.on(GetCommand).resolves({ Item: jobItem('split', { job_id: 'split_job_1' }) });
    dynamo.on(TransactWriteCommand).resolves({});

    await finishJob(
      7,
      'split_job_1',
      {
        status: 'completed',
        outputAssetId: null,
        outputs: [output('clip-1', 'asset_c1'), output('clip-2', 'asset_c2')],
      },
      NOW,
    );

    const [, organization, event, ...outputs] = withoutTracking(writtenItems());
    expect(organization!.Update!.UpdateExpression).toBe(
      'SET active_split_jobs = if_not_exists(active_split_jobs, :one) - :one',
    );
    expect(event!.Put!.Item!.payload.data.job).toEqual({
      id: 'split_job_1',
      type: 'split',
      status: 'completed',
      result_url: '/api/v1/developer/split-jobs/split_job_1/result',
      clips_url: '/api/v1/developer/split-jobs/split_job_1/clips',
    });
    expect(outputs.map((item) => item.Put!.Item!.sk)).toEqual(['ASSET#asset_c1', 'ASSET#asset_c2']);
  });

  it('refunds a failed job its whole charge, releases its slot and reports job.failed', async () => {
    dynamo.on(GetCommand).resolves({ Item: jobItem('video') });
    dynamo.on(TransactWriteCommand).resolves({});
    const error = { code: 'RENDER_FAILED', message: 'The video could not be generated.' };

    await finishJob(7, 'video_job_1', { status: 'failed', error }, NOW);

    const [job, organization, event, ...rest] = withoutTracking(writtenItems());
    expect(rest).toEqual([]);
    expect(job!.Update!.ExpressionAttributeValues).toMatchObject({
      ':status': 'failed',
      ':refund': 10,
      ':error': error,
    });
    expect(organization!.Update).toMatchObject({
      UpdateExpression:
        'SET active_video_jobs = if_not_exists(active_video_jobs, :one) - :one, credits_balance = credits_balance + :refund',
      ExpressionAttributeValues: { ':one': 1, ':refund': 10 },
    });
    expect(event!.Put!.Item!.payload).toMatchObject({
      type: 'job.failed',
      data: { job: { id: 'video_job_1', type: 'video', status: 'failed', error } },
    });
  });

  it('refuses two outputs of the same name before writing anything', async () => {
    dynamo.on(GetCommand).resolves({ Item: jobItem('video') });

    await expect(
      finishJob(7, 'video_job_1', {
        status: 'completed',
        outputAssetId: 'asset_a',
        outputs: [output('video', 'asset_a'), output('video', 'asset_b')],
      }),
    ).rejects.toThrow(/two outputs named video/);
    expect(dynamo.commandCalls(TransactWriteCommand)).toHaveLength(0);
  });

  it('leaves a job that has already ended as it is, whoever ended it, and says it did not end it', async () => {
    dynamo.on(GetCommand).resolves({ Item: jobItem('video', { status: 'failed' }) });

    await expect(finishJob(7, 'video_job_1', { status: 'completed', outputAssetId: null, outputs: [] })).resolves.toBe(
      false,
    );

    expect(dynamo.commandCalls(TransactWriteCommand)).toHaveLength(0);
  });

  it('takes a job that another finisher ended first, named by its reason and read again, as done', async () => {
    dynamo
      .on(GetCommand)
      .resolvesOnce({ Item: jobItem('video') })
      .resolves({ Item: jobItem('video', { status: 'failed' }) });
    dynamo.on(TransactWriteCommand).callsFake(refusedAt(JOB_KEY));

    await expect(
      finishJob(7, 'video_job_1', {
        status: 'completed',
        outputAssetId: 'asset_a',
        outputs: [output('video', 'asset_a'), output('thumbnail', 'asset_b')],
      }),
    ).resolves.toBe(false);
    expect(dynamo.commandCalls(GetCommand)).toHaveLength(2);
    expect(dynamo.commandCalls(TransactWriteCommand)).toHaveLength(1);
  });

  it('does not swallow a refused output: the second output, not the job, is named', async () => {
    dynamo.on(GetCommand).resolves({ Item: jobItem('video') });
    dynamo.on(TransactWriteCommand).callsFake(refusedAt({ pk: 'ORG#7', sk: 'ASSET#asset_b' }));

    const refusal = finishJob(7, 'video_job_1', {
      status: 'completed',
      outputAssetId: 'asset_a',
      outputs: [output('video', 'asset_a'), output('thumbnail', 'asset_b')],
    });

    await expect(refusal).rejects.toBeInstanceOf(TransactionRefused);
    await expect(refusal).rejects.toMatchObject({
      reasons: { 'output:thumbnail': { code: 'ConditionalCheckFailed' } },
    });
  });

  it('retries a transaction that conflicted with a concurrent one', async () => {
    dynamo.on(GetCommand).resolves({ Item: jobItem('video') });
    dynamo.on(TransactWriteCommand).rejectsOnce(conflicted()).resolves({});

    await finishJob(7, 'video_job_1', { status: 'expired', error: { code: 'X', message: 'y' } });

    expect(dynamo.commandCalls(TransactWriteCommand)).toHaveLength(2);
  });
});

describe('creating a job', () => {
  const request = newVideoJob({
    limits: { ...TEAM_LIMITS, concurrent_video_jobs: 3 },
    metadata: { external_id: 'order-1' },
  });
  const claim = { operation: 'createVideoJob', key: 'key-1', fingerprint: requestFingerprint({ prompt: 'A' }) };
  const RECORD_KEY = { pk: 'ORG#7', sk: 'IDEMPOTENCY#createVideoJob#key-1' };

  it('charges, takes a slot, writes the job and the idempotency record in one transaction', async () => {
    dynamo.on(TransactWriteCommand).resolves({});

    const { job, replayed } = await createJob({ ...request, idempotency: claim }, NOW);

    expect(replayed).toBe(false);
    expect(job).toMatchObject({
      type: 'video',
      status: 'queued',
      credits: { estimated: 10, charged: 10, refunded: 0 },
    });
    expect(job.jobId).toMatch(/^video_job_/);
    const items = writtenItems();
    const [organization, jobPut, ...rest] = withoutTracking(items);
    expect(organization!.Update!.ConditionExpression).toBe(
      'credits_balance >= :price AND (attribute_not_exists(active_video_jobs) OR active_video_jobs < :cap)',
    );
    expect(jobPut!.Put!.Item).toMatchObject({
      sk: `JOB#${job.jobId}`,
      external_id: 'order-1',
      input: request.input,
      created_by_key: 'abcdefghjkmnpqrs',
      tracked: true,
    });
    // The job list is its own items now, written in this transaction; the job is on no index of it.
    expect(jobPut!.Put!.Item).not.toHaveProperty('gsi1pk');
    expect(jobPut!.Put!.Item).not.toHaveProperty('gsi1sk');
    expect(rest).toEqual([itemAt(items, RECORD_KEY)]);
    expect(rest[0]!.Put!.Item).toMatchObject({ ...RECORD_KEY, job_id: job.jobId });
  });

  it.each([
    ['the balance is short', { credits_balance: 4, active_video_jobs: 0 }, 'INSUFFICIENT_CREDITS', /balance is 4/, {}],
    [
      'every slot is taken',
      { credits_balance: 50, active_video_jobs: 3 },
      'CONCURRENT_JOB_LIMIT_EXCEEDED',
      /3 active/,
      { 'Retry-After': '30' },
    ],
  ])('answers which limit refused the charge when %s', async (_, organization, code, message, headers) => {
    dynamo.on(TransactWriteCommand).callsFake(refusedAt(ORGANIZATION_KEY, organization));

    await expect(createJob(request, NOW)).rejects.toMatchObject({
      code,
      message: expect.stringMatching(message),
      headers,
    });
  });

  it('replays the job an Idempotency-Key created when the body is the same', async () => {
    dynamo.on(TransactWriteCommand).callsFake(refusedAt(RECORD_KEY));
    dynamo
      .on(GetCommand, { Key: RECORD_KEY })
      .resolves({ Item: { fingerprint: claim.fingerprint, job_id: 'video_job_1' } });
    dynamo.on(GetCommand, { Key: JOB_KEY }).resolves({ Item: jobItem('video') });

    const { job, replayed } = await createJob({ ...request, idempotency: claim }, NOW);

    expect(replayed).toBe(true);
    expect(job.jobId).toBe('video_job_1');
  });

  it('refuses a reused Idempotency-Key with another body', async () => {
    dynamo.on(TransactWriteCommand).callsFake(refusedAt(RECORD_KEY));
    dynamo.on(GetCommand).resolves({ Item: { fingerprint: 'another body', job_id: 'video_job_1' } });

    await expect(createJob({ ...request, idempotency: claim }, NOW)).rejects.toMatchObject({
      code: 'IDEMPOTENCY_CONFLICT',
    });
  });
});

describe("the metrics of a job's charge and end", () => {
  let metrics: MetricDocument[];
  const request = newVideoJob({ price: 12 });
  const claim = { operation: 'createVideoJob', key: 'key-1', fingerprint: requestFingerprint({ prompt: 'A' }) };

  beforeEach(() => {
    metrics = captureMetrics();
  });

  it('counts the credits charged once the create transaction is written', async () => {
    dynamo.on(TransactWriteCommand).resolves({});
    await createJob(request, NOW);
    expect(publishedValues(metrics, 'CreditsCharged')).toEqual([{ JobType: 'video', value: 12 }]);
  });

  it('counts no charge for a refused create, a replay or a create whose transaction failed', async () => {
    dynamo.on(TransactWriteCommand).callsFake(refusedAt(ORGANIZATION_KEY, { credits_balance: 0 }));
    await expect(createJob(request, NOW)).rejects.toMatchObject({ code: 'INSUFFICIENT_CREDITS' });

    dynamo.reset();
    const recordKey = { pk: 'ORG#7', sk: 'IDEMPOTENCY#createVideoJob#key-1' };
    dynamo.on(TransactWriteCommand).callsFake(refusedAt(recordKey));
    dynamo
      .on(GetCommand, { Key: recordKey })
      .resolves({ Item: { fingerprint: claim.fingerprint, job_id: 'video_job_1' } });
    dynamo.on(GetCommand, { Key: JOB_KEY }).resolves({ Item: jobItem('video') });
    expect((await createJob({ ...request, idempotency: claim }, NOW)).replayed).toBe(true);

    dynamo.reset();
    dynamo.on(TransactWriteCommand).rejects(new Error('timed out'));
    await expect(createJob(request, NOW)).rejects.toThrow('timed out');

    expect(metrics).toEqual([]);
  });

  const failure = { code: 'RENDER_FAILED', message: 'No.' };
  it.each([
    ['video', 'failed', { status: 'failed', error: failure }, 10],
    ['video', 'expired', { status: 'expired', error: failure }, 10],
    ['video', 'completed', { status: 'completed', outputAssetId: null, outputs: [] }, 0],
    ['split', 'completed', { status: 'completed', outputAssetId: null, outputs: [], clipsCount: 3, refund: 4 }, 4],
  ] as const)('counts a %s job ended %s once, with what it refunded', async (type, status, outcome, refund) => {
    dynamo.on(GetCommand).resolves({ Item: jobItem(type, { job_id: `${type}_job_1` }) });
    dynamo.on(TransactWriteCommand).resolves({});

    await finishJob(7, `${type}_job_1`, outcome, NOW);

    expect(publishedValues(metrics, 'JobsEnded')).toEqual([{ JobType: type, Outcome: status, value: 1 }]);
    expect(publishedValues(metrics, 'CreditsRefunded')).toEqual([{ JobType: type, value: refund }]);
  });

  it('counts nothing for a call that did not end the job: already ended, ended first by another, or failed', async () => {
    const failed = { status: 'failed' as const, error: { code: 'X', message: 'y' } };
    dynamo.on(GetCommand).resolves({ Item: jobItem('video', { status: 'completed' }) });
    await finishJob(7, 'video_job_1', failed, NOW);

    dynamo.reset();
    dynamo
      .on(GetCommand)
      .resolvesOnce({ Item: jobItem('video') })
      .resolves({ Item: jobItem('video', { status: 'expired' }) });
    dynamo.on(TransactWriteCommand).callsFake(refusedAt(JOB_KEY));
    await finishJob(7, 'video_job_1', failed, NOW);

    dynamo.reset();
    dynamo.on(GetCommand).resolves({ Item: jobItem('video') });
    dynamo.on(TransactWriteCommand).rejects(new Error('timed out'));
    await expect(finishJob(7, 'video_job_1', failed, NOW)).rejects.toThrow('timed out');

    expect(metrics).toEqual([]);
  });
});
