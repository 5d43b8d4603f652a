import { ExecutionDoesNotExist, SFNClient, StopExecutionCommand } from '@aws-sdk/client-sfn';
import {
  DynamoDBDocumentClient,
  GetCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import type { VideoJobInput } from '#contract/types';
import type { Caller } from '#domain/access/authentication';
import type { Scope } from '#domain/access/scopes';
import { cancelAnyJob, cancelJobOfType } from '#domain/jobs/cancellation';
import { endJobOfExecution } from '#domain/jobs/execution-endings';
import type { VideoProvider } from '#domain/video-jobs/providers/port';
import { LUMA_RAY2 } from '#domain/models/model-registry';
import { RENDER_SCHEDULE } from '#domain/video-jobs/render-schedule';
import { startRender } from '#domain/video-jobs/render-steps';
import { deadlineOf } from '#domain/jobs/deadlines';
import { reconcileJobs } from '#domain/jobs/reconciler';
import { JOB_CLIPS } from '#domain/split-jobs/clip-store';
import { sortableId } from '#platform/ids';
import type { TransactionItem } from '#platform/transactions';
import { testCaller } from './support/api-caller';
import { clipItem, splitJobItem } from './support/split-job-item';
import { itemAt, refusedAt } from './support/transactions';

process.env.TABLE_NAME = 'table';
process.env.AWS_REGION = 'us-east-1';
process.env.LOG_LEVEL = 'silent';
process.env.MEDIA_BUCKET_NAME = 'media';
process.env.VIDEO_JOB_STATE_MACHINE_ARN = 'arn:aws:states:us-east-1:1:stateMachine:video-job';
process.env.SPLIT_JOB_STATE_MACHINE_ARN = 'arn:aws:states:us-east-1:1:stateMachine:split-job';

const dynamo = mockClient(DynamoDBDocumentClient);
const sfn = mockClient(SFNClient);

const NOW = new Date('2026-03-01T12:00:00.000Z');
const VIDEO_JOB_ID = sortableId('video_job_', NOW.getTime() - 120_000);
const SPLIT_JOB_ID = sortableId('split_job_', NOW.getTime() - 600_000);
const JOB_KEY = { pk: 'ORG#7', sk: `JOB#${VIDEO_JOB_ID}` };
const SPLIT_KEY = { pk: 'ORG#7', sk: `JOB#${SPLIT_JOB_ID}` };

function videoJobItem(overrides: Record<string, unknown> = {}) {
  return {
    ...JOB_KEY,
    job_id: VIDEO_JOB_ID,
    organization_id: 7,
    type: 'video',
    status: 'processing',
    progress: 40,
    created_at: '2026-03-01T11:58:00.000Z',
    updated_at: '2026-03-01T11:59:00.000Z',
    credits: { estimated: 10, charged: 10, refunded: 0 },
    input: { prompt: 'A lighthouse', duration_seconds: 5, aspect_ratio: '9:16', model: 'auto', mode: 'text_to_video' },
    metadata: null,
    tracked: true,
    ...overrides,
  };
}

const splitJob = (overrides: Record<string, unknown> = {}) => splitJobItem(7, SPLIT_JOB_ID, overrides);

const clip = (rank: number, status: string) =>
  clipItem({ organizationId: 7, jobId: SPLIT_JOB_ID, rank, status, startSeconds: rank * 10 });

/** The one transaction written, its items by key. */
function transactionItems(): TransactionItem[] {
  const calls = dynamo.commandCalls(TransactWriteCommand);
  expect(calls).toHaveLength(1);
  return calls[0]!.args[0].input.TransactItems as TransactionItem[];
}

function callerWith(scopes: readonly Scope[]): Caller {
  return testCaller({ apiKey: { scopes: [...scopes] }, organization: { organizationId: 7 } });
}

beforeEach(() => {
  dynamo.reset();
  sfn.reset();
  dynamo.on(TransactWriteCommand).resolves({});
  dynamo.on(QueryCommand).resolves({ Items: [] });
  dynamo.on(UpdateCommand).resolves({});
  sfn.on(StopExecutionCommand).resolves({});
});

describe('cancelling a job', () => {
  test.each(['queued', 'processing'])(
    'a %s video job ends cancelled in one transaction conditional on that status, refunded in full, with a job.cancelled event, then its execution is stopped',
    async (status) => {
      dynamo.on(GetCommand).resolves({ Item: videoJobItem({ status }) });
      const job = await cancelJobOfType(JOB_CLIPS, 7, VIDEO_JOB_ID, 'video', NOW);
      expect(job).toMatchObject({
        status: 'cancelled',
        credits: { charged: 10, refunded: 10 },
        error: { code: 'JOB_CANCELLED' },
      });
      const items = transactionItems();
      expect(itemAt(items, JOB_KEY).Update).toMatchObject({
        ConditionExpression: '#status = :seen',
        ExpressionAttributeValues: { ':status': 'cancelled', ':seen': status, ':refund': 10 },
      });
      expect(itemAt(items, { pk: 'ORG#7', sk: 'ORG' }).Update?.ExpressionAttributeValues).toMatchObject({
        ':one': 1,
        ':refund': 10,
      });
      const event = items.find((item) => String(item.Put?.Item?.sk).startsWith('EVENT#'))!.Put!.Item!;
      expect(event.payload).toMatchObject({
        type: 'job.cancelled',
        data: { job: { id: VIDEO_JOB_ID, type: 'video', status: 'cancelled', error: { code: 'JOB_CANCELLED' } } },
      });
      expect(sfn.commandCalls(StopExecutionCommand).map((call) => call.args[0].input)).toEqual([
        { executionArn: `arn:aws:states:us-east-1:1:execution:video-job:${VIDEO_JOB_ID}` },
      ]);
      // The job is read once: the route's read decides the transaction.
      expect(dynamo.commandCalls(GetCommand)).toHaveLength(1);
    },
  );

  test('a job already cancelled is answered as it is: nothing written, refunded or stopped again', async () => {
    const cancelled = videoJobItem({ status: 'cancelled', credits: { estimated: 10, charged: 10, refunded: 10 } });
    dynamo.on(GetCommand).resolves({ Item: cancelled });
    const job = await cancelJobOfType(JOB_CLIPS, 7, VIDEO_JOB_ID, 'video', NOW);
    expect(job).toMatchObject({ status: 'cancelled', credits: { refunded: 10 } });
    expect(dynamo.commandCalls(TransactWriteCommand)).toHaveLength(0);
    expect(sfn.commandCalls(StopExecutionCommand)).toHaveLength(0);
  });

  test.each(['completed', 'failed', 'expired'])(
    'a %s job answers 409 JOB_ALREADY_ENDED naming its status, and nothing changes',
    async (status) => {
      dynamo.on(GetCommand).resolves({ Item: videoJobItem({ status }) });
      await expect(cancelJobOfType(JOB_CLIPS, 7, VIDEO_JOB_ID, 'video', NOW)).rejects.toMatchObject({
        code: 'JOB_ALREADY_ENDED',
        status: 409,
        message: expect.stringContaining(`already ended ${status}`),
      });
      expect(dynamo.commandCalls(TransactWriteCommand)).toHaveLength(0);
      expect(sfn.commandCalls(StopExecutionCommand)).toHaveLength(0);
    },
  );

  test('a cancel that loses the race to the job’s own end answers 409 with the status the job ended in, refunding nothing', async () => {
    dynamo
      .on(GetCommand)
      .resolvesOnce({ Item: videoJobItem() })
      .resolves({ Item: videoJobItem({ status: 'completed' }) });
    dynamo.on(TransactWriteCommand).callsFake(refusedAt(JOB_KEY));
    await expect(cancelJobOfType(JOB_CLIPS, 7, VIDEO_JOB_ID, 'video', NOW)).rejects.toMatchObject({
      code: 'JOB_ALREADY_ENDED',
      message: expect.stringContaining('already ended completed'),
    });
    expect(dynamo.commandCalls(TransactWriteCommand)).toHaveLength(1);
    // The route's read decides the first attempt; the refusal alone makes it read again.
    expect(dynamo.commandCalls(GetCommand)).toHaveLength(2);
    expect(sfn.commandCalls(StopExecutionCommand)).toHaveLength(0);
  });

  test('a cancel that meets a concurrent cancel answers the cancelled job, refunded once', async () => {
    const cancelled = videoJobItem({ status: 'cancelled', credits: { estimated: 10, charged: 10, refunded: 10 } });
    dynamo
      .on(GetCommand)
      .resolvesOnce({ Item: videoJobItem() })
      .resolvesOnce({ Item: videoJobItem() })
      .resolves({ Item: cancelled });
    dynamo.on(TransactWriteCommand).callsFake(refusedAt(JOB_KEY));
    await expect(cancelJobOfType(JOB_CLIPS, 7, VIDEO_JOB_ID, 'video', NOW)).resolves.toMatchObject({
      status: 'cancelled',
      credits: { refunded: 10 },
    });
    expect(sfn.commandCalls(StopExecutionCommand)).toHaveLength(0);
  });

  test('a processing split job keeps the price of its completed clips: 1 of 3 done of 10 credits refunds 7, and its unfinished clips are failed', async () => {
    dynamo.on(GetCommand).resolves({ Item: splitJob() });
    dynamo.on(QueryCommand).resolves({ Items: [clip(1, 'completed'), clip(2, 'processing'), clip(3, 'pending')] });
    const job = await cancelJobOfType(JOB_CLIPS, 7, SPLIT_JOB_ID, 'split', NOW);
    expect(job.credits).toEqual({ estimated: 10, charged: 10, refunded: 7 });
    expect(itemAt(transactionItems(), SPLIT_KEY).Update?.ExpressionAttributeValues).toMatchObject({ ':refund': 7 });
    const failed = dynamo.commandCalls(UpdateCommand).map((call) => call.args[0].input);
    expect(failed.map((update) => update.Key)).toEqual([
      { pk: 'ORG#7', sk: `CLIP#${SPLIT_JOB_ID}#02` },
      { pk: 'ORG#7', sk: `CLIP#${SPLIT_JOB_ID}#03` },
    ]);
    expect(failed[0]!.ExpressionAttributeValues).toMatchObject({
      ':status': 'failed',
      ':error': { code: 'JOB_CANCELLED' },
    });
    expect(sfn.commandCalls(StopExecutionCommand)[0]!.args[0].input.executionArn).toBe(
      `arn:aws:states:us-east-1:1:execution:split-job:${SPLIT_JOB_ID}`,
    );
  });

  test('a split job cancelled before its clips are chosen is refunded in full', async () => {
    dynamo.on(GetCommand).resolves({ Item: splitJob({ status: 'queued' }) });
    const job = await cancelJobOfType(JOB_CLIPS, 7, SPLIT_JOB_ID, 'split', NOW);
    expect(job.credits.refunded).toBe(10);
  });

  test('an execution that never started has nothing to stop, and one that cannot be stopped still leaves the job cancelled', async () => {
    dynamo.on(GetCommand).resolves({ Item: videoJobItem({ status: 'queued' }) });
    sfn.on(StopExecutionCommand).rejects(new ExecutionDoesNotExist({ message: 'no', $metadata: {} }));
    await expect(cancelJobOfType(JOB_CLIPS, 7, VIDEO_JOB_ID, 'video', NOW)).resolves.toMatchObject({
      status: 'cancelled',
    });
    dynamo.on(GetCommand).resolves({ Item: videoJobItem({ status: 'queued' }) });
    sfn.on(StopExecutionCommand).rejects(new Error('Step Functions unavailable'));
    await expect(cancelJobOfType(JOB_CLIPS, 7, VIDEO_JOB_ID, 'video', NOW)).resolves.toMatchObject({
      status: 'cancelled',
    });
  });

  test('a typed route does not find a job of the other type, as its GET does not', async () => {
    dynamo.on(GetCommand).resolves({ Item: splitJob() });
    await expect(cancelJobOfType(JOB_CLIPS, 7, SPLIT_JOB_ID, 'video', NOW)).rejects.toMatchObject({
      code: 'JOB_NOT_FOUND',
    });
    expect(dynamo.commandCalls(TransactWriteCommand)).toHaveLength(0);
  });
});

describe('the job’s own steps after a cancel', () => {
  test('a render that started while the job was cancelled ends the execution quietly, with nothing to poll', async () => {
    dynamo.on(GetCommand).resolves({ Item: videoJobItem({ status: 'processing' }) });
    dynamo
      .on(UpdateCommand)
      .rejects(new ConditionalCheckFailedException({ message: 'The conditional request failed', $metadata: {} }));
    const provider: VideoProvider = {
      kind: 'local',
      start: jest.fn().mockResolvedValue({ state: 'started', providerJobId: 'render-1' }),
      poll: jest.fn(),
    };
    await expect(
      startRender(provider, { organization_id: 7, job_id: VIDEO_JOB_ID }, RENDER_SCHEDULE, LUMA_RAY2, NOW.getTime()),
    ).resolves.toEqual({ organization_id: 7, job_id: VIDEO_JOB_ID, outcome: 'finished' });
  });

  test('the execution-ended task leaves a cancelled job as it is when its execution ends ABORTED', async () => {
    dynamo.on(GetCommand).resolves({ Item: videoJobItem({ status: 'cancelled' }) });
    await endJobOfExecution(JOB_CLIPS, {
      executionArn: `arn:aws:states:us-east-1:1:execution:video-job:${VIDEO_JOB_ID}`,
      status: 'ABORTED',
      input: JSON.stringify({ organization_id: 7, job_id: VIDEO_JOB_ID }),
    });
    expect(dynamo.commandCalls(TransactWriteCommand)).toHaveLength(0);
  });
});

describe('cancelling through the unified route', () => {
  test.each([
    ['video', 'video:create', videoJobItem, VIDEO_JOB_ID],
    ['split', 'split:create', splitJob, SPLIT_JOB_ID],
  ] as const)('a %s job needs %s', async (_type, scope, item, jobId) => {
    dynamo.on(GetCommand).resolves({ Item: item() });
    const other: Scope = scope === 'video:create' ? 'split:create' : 'video:create';
    await expect(cancelAnyJob(JOB_CLIPS, callerWith([other, 'jobs:read']), jobId, NOW)).rejects.toMatchObject({
      code: 'INSUFFICIENT_SCOPE',
      status: 403,
    });
    expect(dynamo.commandCalls(TransactWriteCommand)).toHaveLength(0);
    await expect(cancelAnyJob(JOB_CLIPS, callerWith([scope]), jobId, NOW)).resolves.toMatchObject({
      status: 'cancelled',
    });
  });

  test('another organization’s job is not found whatever the key’s scopes', async () => {
    dynamo.on(GetCommand).resolves({});
    await expect(cancelAnyJob(JOB_CLIPS, callerWith([]), VIDEO_JOB_ID, NOW)).rejects.toMatchObject({
      code: 'JOB_NOT_FOUND',
      status: 404,
    });
  });
});

describe('deadlines', () => {
  test('a job’s deadline is its creation plus its deadline_seconds; without one it has none', () => {
    const input: VideoJobInput = {
      prompt: 'A lighthouse',
      duration_seconds: 5,
      aspect_ratio: '9:16',
      model: 'auto',
      mode: 'text_to_video',
    };
    const createdAt = '2026-03-01T11:00:00.000Z';
    expect(deadlineOf({ createdAt, input: { ...input, deadline_seconds: 90 } })).toEqual(
      new Date('2026-03-01T11:01:30.000Z'),
    );
    expect(deadlineOf({ createdAt, input })).toBe(undefined);
  });

  function reconcilerFinds(item: Record<string, unknown>) {
    dynamo
      .on(QueryCommand)
      .callsFake((input: { IndexName?: string; ExpressionAttributeValues: Record<string, string> }) => ({
        Items:
          input.IndexName && input.ExpressionAttributeValues[':shard'] === 'ACTIVE#0'
            ? [
                {
                  organization_id: 7,
                  job_id: item.job_id,
                  type: item.type,
                  status: item.status,
                  created_at: item.created_at,
                },
              ]
            : [],
      }));
    dynamo.on(GetCommand).resolves({ Item: item });
  }

  test('the reconciler expires a job past its deadline: refunded, a job.failed event with status expired, its execution stopped', async () => {
    reconcilerFinds(videoJobItem({ input: { ...videoJobItem().input, deadline_seconds: 60 } }));
    expect(await reconcileJobs(JOB_CLIPS, { now: NOW })).toEqual({ started: 0, ended: 0, expired: 1, errors: 0 });
    const items = transactionItems();
    expect(itemAt(items, JOB_KEY).Update?.ExpressionAttributeValues).toMatchObject({
      ':status': 'expired',
      ':refund': 10,
      ':error': { code: 'JOB_DEADLINE_EXCEEDED' },
    });
    const event = items.find((item) => String(item.Put?.Item?.sk).startsWith('EVENT#'))!.Put!.Item!;
    expect(event.payload).toMatchObject({
      type: 'job.failed',
      data: { job: { status: 'expired', error: { code: 'JOB_DEADLINE_EXCEEDED' } } },
    });
    expect(sfn.commandCalls(StopExecutionCommand)).toHaveLength(1);
  });

  test('the reconciler leaves a job before its deadline running, and starts its execution again as for any job', async () => {
    reconcilerFinds(videoJobItem({ input: { ...videoJobItem().input, deadline_seconds: 600 } }));
    expect(await reconcileJobs(JOB_CLIPS, { now: NOW })).toEqual({ started: 1, ended: 0, expired: 0, errors: 0 });
    expect(dynamo.commandCalls(TransactWriteCommand)).toHaveLength(0);
    expect(sfn.commandCalls(StopExecutionCommand)).toHaveLength(0);
  });
});
