import { ExecutionAlreadyExists, SFNClient, SFNServiceException, StartExecutionCommand } from '@aws-sdk/client-sfn';
import {
  DynamoDBDocumentClient,
  GetCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { endJobOfExecution } from '#domain/jobs/execution-endings';
import { submitJob } from '#domain/jobs/submit-job';
import { ACTIVE_JOB_SHARDS } from '#domain/jobs/job-store';
import { longestActiveSeconds, RECONCILE_SCHEDULE } from '#domain/jobs/reconcile-schedule';
import { reconcileJobs } from '#domain/jobs/reconciler';
import { JOB_CLIPS } from '#domain/split-jobs/clip-store';
import { requestFingerprint } from '#platform/idempotency';
import { TABLE_DESIGN } from '#platform/table-design';
import { workflowOfJobType } from '#workflows';
import { captureMetrics, publishedValues } from './support/metrics';
import { refusedAt } from './support/transactions';
import { newVideoJob } from './support/new-job';
import { clipItem, splitJobItem } from './support/split-job-item';

process.env.TABLE_NAME = 'table';
process.env.AWS_REGION = 'us-east-1';
process.env.LOG_LEVEL = 'silent';
process.env.VIDEO_JOB_STATE_MACHINE_ARN = 'arn:aws:states:us-east-1:1:stateMachine:video-job';

const dynamo = mockClient(DynamoDBDocumentClient);
const sfn = mockClient(SFNClient);

const NOW = new Date('2026-03-01T12:00:00.000Z');
const TIMEOUT_SECONDS = workflowOfJobType('video').executionTimeoutSeconds;
const secondsBefore = (seconds: number) => new Date(NOW.getTime() - seconds * 1000).toISOString();

function jobItem(overrides: Record<string, unknown> = {}) {
  return {
    job_id: 'video_job_1',
    organization_id: 7,
    type: 'video',
    status: 'queued',
    progress: 0,
    created_at: secondsBefore(120),
    updated_at: secondsBefore(120),
    credits: { estimated: 10, charged: 10, refunded: 0 },
    input: { prompt: 'A lighthouse', duration_seconds: 5, aspect_ratio: '9:16', model: 'auto', mode: 'text_to_video' },
    metadata: null,
    created_by_key: 'abcdefghjkmnpqrs',
    tracked: true,
    ...overrides,
  };
}

/** The index entry of a job item, in the shard the test puts it in. */
const indexed = (
  item: Pick<ReturnType<typeof jobItem>, 'organization_id' | 'job_id' | 'type' | 'status' | 'created_at'>,
) => ({
  organization_id: item.organization_id,
  job_id: item.job_id,
  type: item.type,
  status: item.status,
  created_at: item.created_at,
});

/**
 * Each shard answers with the entries the test gives it (shard 0 unless told), and each entry's
 * job, read for its deadline, is the test's job item (without a deadline) unless the test says otherwise.
 */
function activeIndexHolds(entries: Record<string, unknown>[], shard = 0) {
  dynamo.on(QueryCommand).callsFake((input: { ExpressionAttributeValues: Record<string, string> }) => ({
    Items: input.ExpressionAttributeValues[':shard'] === `ACTIVE#${shard}` ? entries : [],
  }));
  dynamo.on(GetCommand).callsFake((input: { Key: { sk: string } }) => {
    const entry = entries.find((candidate) => input.Key.sk === `JOB#${String(candidate.job_id)}`);
    return { Item: entry && jobItem(entry) };
  });
}

/** The one finish transaction written: the job's update and the organization's. */
function endingWritten() {
  const calls = dynamo.commandCalls(TransactWriteCommand);
  expect(calls).toHaveLength(1);
  const [job, organization] = calls[0]!.args[0].input.TransactItems!;
  return { job: job!.Update!, organization: organization!.Update! };
}

/**
 * A processing split job charged 25 whose four clips are completed, completed, processing and
 * pending: the table answers it, and its clips to their query; clip updates succeed.
 */
const SPLIT_JOB_ID = 'split_job_01J0000000000000000000000A';
function splitJobWithHalfItsClipsCompleted(overrides: Record<string, unknown> = {}) {
  const job = splitJobItem(7, SPLIT_JOB_ID, { credits: { estimated: 25, charged: 25, refunded: 0 }, ...overrides });
  const clips = (['completed', 'completed', 'processing', 'pending'] as const).map((status, index) =>
    clipItem({ organizationId: 7, jobId: SPLIT_JOB_ID, rank: index + 1, status, startSeconds: index * 10 }),
  );
  dynamo.on(GetCommand).resolves({ Item: job });
  dynamo
    .on(QueryCommand, { ExpressionAttributeValues: { ':prefix': `CLIP#${SPLIT_JOB_ID}#` } })
    .resolves({ Items: clips });
  dynamo.on(UpdateCommand).resolves({});
  return job;
}

/** The keys of the clips failed with `code`, each before the transaction that ended the job. */
function clipsFailedBeforeTheEnding(code: string) {
  const commands = dynamo.calls().map((call) => call.args[0]);
  const ending = commands.findIndex((command) => command instanceof TransactWriteCommand);
  const updates = commands.flatMap((command, index) =>
    command instanceof UpdateCommand ? [{ index, input: command.input }] : [],
  );
  for (const { index, input } of updates) {
    expect(index).toBeLessThan(ending);
    expect(input.ExpressionAttributeValues).toMatchObject({ ':status': 'failed', ':error': { code } });
  }
  return updates.map(({ input }) => input.Key);
}

beforeEach(() => {
  dynamo.reset();
  sfn.reset();
  dynamo.on(TransactWriteCommand).resolves({});
});

describe('the reconciler', () => {
  test('queries every shard of the active-jobs index for jobs older than the restart bound, and scans nothing', async () => {
    activeIndexHolds([]);
    await reconcileJobs(JOB_CLIPS, { now: NOW });
    const queries = dynamo.commandCalls(QueryCommand).map((call) => call.args[0].input);
    expect(queries).toHaveLength(ACTIVE_JOB_SHARDS);
    for (const [shard, query] of queries.entries()) {
      expect(query).toMatchObject({
        IndexName: TABLE_DESIGN.activeJobs.indexName,
        KeyConditionExpression: '#shard = :shard AND #since < :before',
        ExpressionAttributeValues: {
          ':shard': `ACTIVE#${shard}`,
          ':before': secondsBefore(RECONCILE_SCHEDULE.restartAfterSeconds),
        },
      });
    }
  });

  test('starts again the execution of a job within its bound, under the job id and with the same input', async () => {
    activeIndexHolds([indexed(jobItem())]);
    sfn.on(StartExecutionCommand).resolves({ executionArn: 'arn' });
    expect(await reconcileJobs(JOB_CLIPS, { now: NOW })).toEqual({ started: 1, ended: 0, expired: 0, errors: 0 });
    expect(sfn.commandCalls(StartExecutionCommand)[0]!.args[0].input).toEqual({
      stateMachineArn: process.env.VIDEO_JOB_STATE_MACHINE_ARN,
      name: 'video_job_1',
      input: JSON.stringify({ organization_id: 7, job_id: 'video_job_1' }),
    });
    expect(dynamo.commandCalls(TransactWriteCommand)).toHaveLength(0);
  });

  test('counts an execution that already exists as started, and does not end its job', async () => {
    activeIndexHolds([indexed(jobItem({ status: 'processing' }))]);
    sfn.on(StartExecutionCommand).rejects(new ExecutionAlreadyExists({ message: 'exists', $metadata: {} }));
    expect(await reconcileJobs(JOB_CLIPS, { now: NOW })).toEqual({ started: 1, ended: 0, expired: 0, errors: 0 });
  });

  test.each([
    ['queued', 'failed', 'START_FAILED'],
    ['processing', 'expired', 'JOB_TIMED_OUT'],
  ])(
    'ends a %s job past its bound as %s (%s), refunding its charge and releasing its slot',
    async (status, ending, code) => {
      const item = jobItem({
        status,
        created_at: secondsBefore(TIMEOUT_SECONDS + RECONCILE_SCHEDULE.graceSeconds + 1),
      });
      activeIndexHolds([indexed(item)], 5);
      dynamo.on(GetCommand).resolves({ Item: item });
      expect(await reconcileJobs(JOB_CLIPS, { now: NOW })).toEqual({ started: 0, ended: 1, expired: 0, errors: 0 });
      const { job, organization } = endingWritten();
      expect(job.ExpressionAttributeValues).toMatchObject({ ':status': ending, ':refund': 10, ':error': { code } });
      expect(job.UpdateExpression).toContain(
        `REMOVE ${TABLE_DESIGN.activeJobs.partitionKey}, ${TABLE_DESIGN.activeJobs.sortKey}`,
      );
      expect(organization).toMatchObject({
        UpdateExpression:
          'SET active_video_jobs = if_not_exists(active_video_jobs, :one) - :one, credits_balance = credits_balance + :refund',
        ExpressionAttributeValues: { ':one': 1, ':refund': 10 },
      });
      expect(sfn.commandCalls(StartExecutionCommand)).toHaveLength(0);
    },
  );

  test('ends a split job past its bound keeping the price of its completed clips, its unfinished clips failed first', async () => {
    const job = splitJobWithHalfItsClipsCompleted({
      created_at: secondsBefore(
        workflowOfJobType('split').executionTimeoutSeconds + RECONCILE_SCHEDULE.graceSeconds + 1,
      ),
    });
    dynamo
      .on(QueryCommand, { IndexName: TABLE_DESIGN.activeJobs.indexName })
      .callsFake((input: { ExpressionAttributeValues: Record<string, string> }) => ({
        Items: input.ExpressionAttributeValues[':shard'] === 'ACTIVE#0' ? [indexed(job)] : [],
      }));

    expect(await reconcileJobs(JOB_CLIPS, { now: NOW })).toEqual({ started: 0, ended: 1, expired: 0, errors: 0 });

    const { job: ending, organization } = endingWritten();
    expect(ending.ExpressionAttributeValues).toMatchObject({
      ':status': 'expired',
      ':refund': 13,
      ':error': { code: 'JOB_TIMED_OUT' },
    });
    expect(organization.ExpressionAttributeValues).toMatchObject({ ':refund': 13 });
    expect(clipsFailedBeforeTheEnding('JOB_TIMED_OUT')).toEqual([
      { pk: 'ORG#7', sk: `CLIP#${SPLIT_JOB_ID}#03` },
      { pk: 'ORG#7', sk: `CLIP#${SPLIT_JOB_ID}#04` },
    ]);
  });

  test('leaves alone a stale index entry whose job has already ended', async () => {
    const item = jobItem({ status: 'queued', created_at: secondsBefore(TIMEOUT_SECONDS * 2) });
    activeIndexHolds([indexed(item)]);
    dynamo.on(GetCommand).resolves({ Item: { ...item, status: 'completed' } });
    expect(await reconcileJobs(JOB_CLIPS, { now: NOW })).toEqual({ started: 0, ended: 1, expired: 0, errors: 0 });
    expect(dynamo.commandCalls(TransactWriteCommand)).toHaveLength(0);
  });

  test('goes on past a job it cannot handle, and reports it', async () => {
    activeIndexHolds([indexed(jobItem({ job_id: 'video_job_1' })), indexed(jobItem({ job_id: 'video_job_2' }))]);
    sfn
      .on(StartExecutionCommand)
      .callsFake((input: { name: string }) =>
        input.name === 'video_job_1'
          ? Promise.reject(new SFNServiceException({ name: 'ThrottlingException', $fault: 'client', $metadata: {} }))
          : { executionArn: 'arn' },
      );
    expect(await reconcileJobs(JOB_CLIPS, { now: NOW })).toEqual({ started: 1, ended: 0, expired: 0, errors: 1 });
  });

  test('publishes every run’s counts for every job type, zeros included, so that a gap means it did not run', async () => {
    const metrics = captureMetrics();
    activeIndexHolds([]);
    await reconcileJobs(JOB_CLIPS, { now: NOW });
    expect(publishedValues(metrics, 'ActiveJobsPastBound')).toEqual([
      { JobType: 'video', value: 0 },
      { JobType: 'split', value: 0 },
    ]);
    expect(publishedValues(metrics, 'ReconcileErrors')).toEqual([{ value: 0 }]);
  });

  test('counts the jobs it found past their bound by type, and the jobs it could not handle', async () => {
    const metrics = captureMetrics();
    const overdue = secondsBefore(TIMEOUT_SECONDS + RECONCILE_SCHEDULE.graceSeconds + 1);
    const pastBound = jobItem({ job_id: 'video_job_1', status: 'processing', created_at: overdue });
    activeIndexHolds([indexed(pastBound), indexed(jobItem({ job_id: 'video_job_2' }))]);
    dynamo.on(GetCommand).resolves({ Item: pastBound });
    sfn
      .on(StartExecutionCommand)
      .rejects(new SFNServiceException({ name: 'ThrottlingException', $fault: 'client', $metadata: {} }));

    expect(await reconcileJobs(JOB_CLIPS, { now: NOW })).toEqual({ started: 0, ended: 1, expired: 0, errors: 1 });

    expect(publishedValues(metrics, 'ActiveJobsPastBound')).toEqual([
      { JobType: 'video', value: 1 },
      { JobType: 'split', value: 0 },
    ]);
    expect(publishedValues(metrics, 'ReconcileErrors')).toEqual([{ value: 1 }]);
    expect(publishedValues(metrics, 'JobsEnded')).toEqual([{ JobType: 'video', Outcome: 'expired', value: 1 }]);
  });

  test('states the longest a job stays active: execution timeout, grace and one schedule period', () => {
    expect(longestActiveSeconds(3600)).toBe(3600 + 300 + 300);
  });
});

describe('submitting a job', () => {
  const claim = { operation: 'createVideoJob', key: 'key-1', fingerprint: requestFingerprint({ a: 1 }) };
  const request = newVideoJob({ input: jobItem().input as never, idempotency: claim });

  /** The create transaction refused by the idempotency record; the record points at the job item. */
  function replayOf(item: ReturnType<typeof jobItem>) {
    dynamo.on(TransactWriteCommand).callsFake(refusedAt({ pk: 'ORG#7', sk: 'IDEMPOTENCY#createVideoJob#key-1' }));
    dynamo
      .on(GetCommand)
      .callsFake((input: { Key: { sk: string } }) =>
        input.Key.sk.startsWith('IDEMPOTENCY#')
          ? { Item: { fingerprint: claim.fingerprint, job_id: item.job_id, expires_at: 9e9 } }
          : { Item: item },
      );
  }

  test('a replay whose job is still queued starts its execution again', async () => {
    replayOf(jobItem({ status: 'queued' }));
    sfn.on(StartExecutionCommand).resolves({ executionArn: 'arn' });
    const job = await submitJob(request);
    expect(job.jobId).toBe('video_job_1');
    expect(sfn.commandCalls(StartExecutionCommand).map((call) => call.args[0].input.name)).toEqual(['video_job_1']);
  });

  test('a replay whose job is processing or ended starts nothing', async () => {
    replayOf(jobItem({ status: 'processing' }));
    await submitJob(request);
    expect(sfn.commandCalls(StartExecutionCommand)).toHaveLength(0);
  });

  test('a start Step Functions refuses ends the job failed and refunded, and the error still reaches the caller', async () => {
    const refused = new SFNServiceException({ name: 'ServiceUnavailable', $fault: 'server', $metadata: {} });
    sfn.on(StartExecutionCommand).rejects(refused);
    dynamo
      .on(GetCommand)
      .callsFake(() => ({ Item: jobItem({ job_id: sfn.commandCalls(StartExecutionCommand)[0]!.args[0].input.name }) }));
    await expect(submitJob({ ...request, idempotency: undefined })).rejects.toBe(refused);
    const [, ending] = dynamo.commandCalls(TransactWriteCommand);
    expect(ending!.args[0].input.TransactItems![0]!.Update!.ExpressionAttributeValues).toMatchObject({
      ':status': 'failed',
      ':refund': 10,
      ':error': { code: 'START_FAILED' },
    });
  });

  test('when ending the job fails too, the start error reaches the caller and the job is left for the reconciler', async () => {
    const refused = new SFNServiceException({ name: 'ServiceUnavailable', $fault: 'server', $metadata: {} });
    sfn.on(StartExecutionCommand).rejects(refused);
    dynamo.on(GetCommand).rejects(new Error('table unavailable'));
    await expect(submitJob({ ...request, idempotency: undefined })).rejects.toBe(refused);
    expect(dynamo.commandCalls(TransactWriteCommand)).toHaveLength(1);
  });
});

describe('an execution that ended without finishing its job', () => {
  const ended = (status: 'FAILED' | 'TIMED_OUT' | 'ABORTED') => ({
    executionArn: 'arn:aws:states:us-east-1:1:execution:video-job:video_job_1',
    status,
    input: JSON.stringify({ organization_id: 7, job_id: 'video_job_1' }),
  });

  test.each([
    ['TIMED_OUT', 'expired', 'JOB_TIMED_OUT'],
    ['FAILED', 'failed', 'INTERNAL_ERROR'],
    ['ABORTED', 'failed', 'INTERNAL_ERROR'],
  ] as const)('%s ends its job %s (%s), refunded', async (status, ending, code) => {
    dynamo.on(GetCommand).resolves({ Item: jobItem({ status: 'processing' }) });
    await endJobOfExecution(JOB_CLIPS, ended(status));
    const { job } = endingWritten();
    expect(job.Key).toEqual({ pk: 'ORG#7', sk: 'JOB#video_job_1' });
    expect(job.ExpressionAttributeValues).toMatchObject({ ':status': ending, ':refund': 10, ':error': { code } });
  });

  test('a job that already ended is left as it is', async () => {
    dynamo.on(GetCommand).resolves({ Item: jobItem({ status: 'completed' }) });
    await endJobOfExecution(JOB_CLIPS, ended('FAILED'));
    expect(dynamo.commandCalls(TransactWriteCommand)).toHaveLength(0);
  });

  test.each([
    ['TIMED_OUT', 'expired', 'JOB_TIMED_OUT'],
    ['FAILED', 'failed', 'INTERNAL_ERROR'],
  ] as const)(
    'a split job whose execution ended %s keeps the price of 2 clips of 4 completed: 13 of 25 credits back, its unfinished clips failed first',
    async (status, ending, code) => {
      splitJobWithHalfItsClipsCompleted();
      await endJobOfExecution(JOB_CLIPS, {
        executionArn: `arn:aws:states:us-east-1:1:execution:split-job:${SPLIT_JOB_ID}`,
        status,
        input: JSON.stringify({ organization_id: 7, job_id: SPLIT_JOB_ID }),
      });
      const { job, organization } = endingWritten();
      expect(job.ExpressionAttributeValues).toMatchObject({ ':status': ending, ':refund': 13, ':error': { code } });
      expect(organization.ExpressionAttributeValues).toMatchObject({ ':refund': 13 });
      expect(clipsFailedBeforeTheEnding(code)).toEqual([
        { pk: 'ORG#7', sk: `CLIP#${SPLIT_JOB_ID}#03` },
        { pk: 'ORG#7', sk: `CLIP#${SPLIT_JOB_ID}#04` },
      ]);
      // The job is read once: that read decides the transaction.
      expect(dynamo.commandCalls(GetCommand)).toHaveLength(1);
    },
  );

  test('a split job whose clips cannot be failed stays active, for the retry of the status change to end it', async () => {
    splitJobWithHalfItsClipsCompleted();
    dynamo.on(UpdateCommand).rejects(new Error('table unavailable'));
    await expect(
      endJobOfExecution(JOB_CLIPS, {
        executionArn: `arn:aws:states:us-east-1:1:execution:split-job:${SPLIT_JOB_ID}`,
        status: 'FAILED',
        input: JSON.stringify({ organization_id: 7, job_id: SPLIT_JOB_ID }),
      }),
    ).rejects.toThrow('table unavailable');
    expect(dynamo.commandCalls(TransactWriteCommand)).toHaveLength(0);
  });
});
