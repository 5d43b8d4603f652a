import { ConditionalCheckFailedException, ProvisionedThroughputExceededException } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { FIRST_WORK_STAGES, JOB_STATUSES, stageOf, type WorkStage } from '#domain/jobs/job';
import { enterWorkStage, findJob } from '#domain/jobs/job-store';
import { presentUnifiedJob } from '#domain/jobs/presentation';

process.env.TABLE_NAME = 'table';
process.env.AWS_REGION = 'us-east-1';

const dynamo = mockClient(DynamoDBDocumentClient);

beforeEach(() => dynamo.reset());

describe('the stage a job shows', () => {
  it('is queued while queued, the work stage while processing, and null once ended', () => {
    for (const type of ['video', 'split'] as const) {
      expect(stageOf({ type, status: 'queued', workStage: null })).toBe('queued');
      expect(stageOf({ type, status: 'processing', workStage: 'rendering' })).toBe('rendering');
      for (const status of JOB_STATUSES.filter((status) => status !== 'queued' && status !== 'processing')) {
        expect([status, stageOf({ type, status, workStage: 'rendering' })]).toEqual([status, null]);
      }
    }
  });

  it("is the type's first stage for a job processing since before stages were recorded", () => {
    expect(stageOf({ type: 'video', status: 'processing', workStage: null })).toBe('rendering');
    expect(stageOf({ type: 'split', status: 'processing', workStage: null })).toBe('preparing');
    expect(FIRST_WORK_STAGES).toEqual({ video: 'rendering', split: 'preparing' });
  });

  it('reads the recorded stage from the job item into every job shape', async () => {
    dynamo.on(GetCommand).resolves({
      Item: {
        job_id: 'split_job_1',
        organization_id: 7,
        type: 'split',
        status: 'processing',
        progress: 47.5,
        work_stage: 'rendering',
        created_at: '2026-03-01T11:59:00.000Z',
        updated_at: '2026-03-01T11:59:30.000Z',
        credits: { estimated: 10, charged: 10, refunded: 0 },
        input: { source_asset_id: 'asset_source' },
        tracked: true,
      },
    });
    const job = await findJob(7, 'split_job_1');
    expect(job).toMatchObject({ workStage: 'rendering', progress: 47 });
    expect(presentUnifiedJob(job!)).toMatchObject({
      stage: 'rendering',
      created_at: '2026-03-01T11:59:00.000Z',
      metadata: null,
    });
  });
});

describe('entering a work stage', () => {
  it('sets the stage and the progress where it begins, only on a processing job not already further on', async () => {
    dynamo.on(UpdateCommand).resolves({});
    const now = new Date('2026-03-01T12:00:00.000Z');
    await enterWorkStage(7, 'video_job_1', 'finishing', 99, now);
    const input = dynamo.commandCalls(UpdateCommand)[0]!.args[0].input;
    expect(input).toMatchObject({
      Key: { pk: 'ORG#7', sk: 'JOB#video_job_1' },
      UpdateExpression: 'SET work_stage = :stage, progress = :progress, updated_at = :now',
      ConditionExpression: '#status = :processing AND progress <= :progress',
      ExpressionAttributeValues: {
        ':stage': 'finishing',
        ':progress': 99,
        ':processing': 'processing',
        ':now': now.toISOString(),
      },
    });
  });

  it('changes nothing, quietly, for a job that ended or went further', async () => {
    dynamo.on(UpdateCommand).rejects(new ConditionalCheckFailedException({ message: 'no', $metadata: {} }));
    await expect(enterWorkStage(7, 'split_job_1', 'analysing' satisfies WorkStage, 2)).resolves.toBeUndefined();
  });

  it('lets any other failure through, for the step to retry', async () => {
    dynamo.on(UpdateCommand).rejects(new ProvisionedThroughputExceededException({ message: 'slow', $metadata: {} }));
    await expect(enterWorkStage(7, 'split_job_1', 'rendering', 45)).rejects.toThrow('slow');
  });
});
