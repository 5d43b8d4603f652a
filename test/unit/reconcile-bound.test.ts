import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SFNClient, StartExecutionCommand } from '@aws-sdk/client-sfn';
import { DynamoDBDocumentClient, GetCommand, QueryCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { RECONCILE_SCHEDULE } from '#domain/jobs/reconcile-schedule';
import { boundSecondsOf, reconcileJobs } from '#domain/jobs/reconciler';
import { JOB_CLIPS } from '#domain/split-jobs/clip-store';
import { TASKS } from '#tasks';

// The video workflow's ASL file as if its time-out were half an hour: the reconciler's bound must
// move with the file, which a number kept beside it would not.
jest.mock('../../state-machines/video-job.asl.json', () => ({
  ...jest.requireActual('../../state-machines/video-job.asl.json'),
  TimeoutSeconds: 1800,
}));
const VIDEO_TIMEOUT_SECONDS = 1800;

process.env.TABLE_NAME = 'table';
process.env.AWS_REGION = 'us-east-1';
process.env.LOG_LEVEL = 'silent';
process.env.VIDEO_JOB_STATE_MACHINE_ARN = 'arn:aws:states:us-east-1:1:stateMachine:video-job';

const dynamo = mockClient(DynamoDBDocumentClient);
const sfn = mockClient(SFNClient);

const NOW = new Date('2026-03-01T12:00:00.000Z');
const secondsBefore = (seconds: number) => new Date(NOW.getTime() - seconds * 1000).toISOString();

/** The one job of the active-jobs index (in shard 0), processing since its creation that many seconds ago. */
function activeVideoJobCreatedBefore(ageSeconds: number) {
  const entry = {
    organization_id: 7,
    job_id: 'video_job_1',
    type: 'video',
    status: 'processing',
    created_at: secondsBefore(ageSeconds),
  };
  dynamo.on(QueryCommand).callsFake((input: { ExpressionAttributeValues: Record<string, string> }) => ({
    Items: input.ExpressionAttributeValues[':shard'] === 'ACTIVE#0' ? [entry] : [],
  }));
  dynamo.on(GetCommand).resolves({
    Item: {
      ...entry,
      progress: 40,
      updated_at: entry.created_at,
      credits: { estimated: 10, charged: 10, refunded: 0 },
      input: {
        prompt: 'A lighthouse',
        duration_seconds: 5,
        aspect_ratio: '9:16',
        model: 'auto',
        mode: 'text_to_video',
      },
      metadata: null,
      created_by_key: 'abcdefghjkmnpqrs',
      tracked: true,
    },
  });
}

beforeEach(() => {
  dynamo.reset();
  sfn.reset();
  dynamo.on(TransactWriteCommand).resolves({});
  sfn.on(StartExecutionCommand).resolves({ executionArn: 'arn' });
});

describe("the reconciler's bound", () => {
  test("is the workflow's ASL time-out plus the grace for the execution's ending to arrive", () => {
    expect(boundSecondsOf('video')).toBe(VIDEO_TIMEOUT_SECONDS + RECONCILE_SCHEDULE.graceSeconds);
    const splitDefinition = JSON.parse(
      readFileSync(join(__dirname, '..', '..', 'state-machines', 'split-job.asl.json'), 'utf8'),
    ) as { TimeoutSeconds: number };
    expect(boundSecondsOf('split')).toBe(splitDefinition.TimeoutSeconds + RECONCILE_SCHEDULE.graceSeconds);
  });

  test('leaves the execution-ended task time for the two retries Lambda makes of a failed ending, a minute then two later', () => {
    const endings = TASKS.find((task) => task.trigger.kind === 'execution-ended')!;
    expect(RECONCILE_SCHEDULE.graceSeconds).toBeGreaterThan(60 + 120 + endings.timeoutSeconds);
  });

  test('a job just inside it has its execution started again, and is not ended', async () => {
    activeVideoJobCreatedBefore(VIDEO_TIMEOUT_SECONDS + RECONCILE_SCHEDULE.graceSeconds - 1);
    expect(await reconcileJobs(JOB_CLIPS, { now: NOW })).toEqual({ started: 1, ended: 0, expired: 0, errors: 0 });
    expect(dynamo.commandCalls(TransactWriteCommand)).toHaveLength(0);
  });

  test('a job just past it is ended, expired and refunded, without a start', async () => {
    activeVideoJobCreatedBefore(VIDEO_TIMEOUT_SECONDS + RECONCILE_SCHEDULE.graceSeconds + 1);
    expect(await reconcileJobs(JOB_CLIPS, { now: NOW })).toEqual({ started: 0, ended: 1, expired: 0, errors: 0 });
    const [ending] = dynamo.commandCalls(TransactWriteCommand);
    expect(ending!.args[0].input.TransactItems![0]!.Update!.ExpressionAttributeValues).toMatchObject({
      ':status': 'expired',
      ':refund': 10,
      ':error': { code: 'JOB_TIMED_OUT' },
    });
    expect(sfn.commandCalls(StartExecutionCommand)).toHaveLength(0);
  });
});
