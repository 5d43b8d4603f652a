import { DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { getSplitJobClips, getSplitJobResult } from '#domain/split-jobs/split-job-clips';
import { sortableId } from '#platform/ids';
import { deferred } from './support/deferred';
import { clipItem, splitJobItem } from './support/split-job-item';

Object.assign(process.env, {
  TABLE_NAME: 'table',
  MEDIA_BUCKET_NAME: 'media',
  AWS_REGION: 'us-east-1',
  AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE',
  AWS_SECRET_ACCESS_KEY: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
  LOG_LEVEL: 'silent',
});

const dynamo = mockClient(DynamoDBDocumentClient);

const JOB_ID = sortableId('split_job_', Date.parse('2026-03-01T11:50:00.000Z'));

const clip = (rank: number, status: string) =>
  clipItem({ organizationId: 7, jobId: JOB_ID, rank, status, startSeconds: 100 - rank * 10 });

beforeEach(() => {
  dynamo.reset();
  dynamo.on(QueryCommand).resolves({ Items: [clip(1, 'processing'), clip(2, 'pending')] });
});

describe("a split job's clips", () => {
  it('are read beside the job, not after it', async () => {
    const jobRead = deferred();
    dynamo.on(GetCommand).callsFake(async () => {
      await jobRead.promise;
      return { Item: splitJobItem(7, JOB_ID) };
    });

    const answer = getSplitJobClips(7, JOB_ID, { order: 'time' });
    await new Promise(setImmediate);
    expect(dynamo.commandCalls(QueryCommand)).toHaveLength(1);
    jobRead.resolve();
    const { clips } = await answer;
    expect(clips.map((clip) => [clip.start_time_seconds, clip.status])).toEqual([
      [80, 'pending'],
      [90, 'processing'],
    ]);
  });

  it("answer 404 for a job the organization does not have, whatever the clips' read found", async () => {
    dynamo.on(GetCommand).resolves({});
    await expect(getSplitJobClips(7, JOB_ID, { order: 'rank' })).rejects.toMatchObject({ code: 'JOB_NOT_FOUND' });
    await expect(getSplitJobResult(7, JOB_ID)).rejects.toMatchObject({ code: 'JOB_NOT_FOUND' });
  });

  it('make no result while the job runs, though they were read beside it', async () => {
    dynamo.on(GetCommand).resolves({ Item: splitJobItem(7, JOB_ID) });
    await expect(getSplitJobResult(7, JOB_ID)).rejects.toMatchObject({ status: 409 });
  });
});
