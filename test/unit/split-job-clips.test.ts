import { DynamoDBDocumentClient, GetCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { getSplitJobClips, getSplitJobResult } from '#domain/split-jobs/split-job-clips';
import { sortableId } from '#platform/ids';
import { deferred } from './support/deferred';

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

function splitJobItem(status: string) {
  return {
    pk: 'ORG#7',
    sk: `JOB#${JOB_ID}`,
    job_id: JOB_ID,
    organization_id: 7,
    type: 'split',
    status,
    progress: 60,
    created_at: '2026-03-01T11:50:00.000Z',
    updated_at: '2026-03-01T11:59:00.000Z',
    credits: { estimated: 10, charged: 10, refunded: 0 },
    input: {
      source_asset_id: 'asset_1',
      target_platforms: [],
      clip_length_preset: 'auto',
      aspect_ratio: '9:16',
      caption_style: 'clean',
      clip_style: 'balanced',
      max_clips: 3,
    },
    metadata: null,
    tracked: true,
  };
}

function clipItem(rank: number, status: string) {
  return {
    clip_id: `clip_${JOB_ID.slice('split_job_'.length)}_0${rank}`,
    organization_id: 7,
    job_id: JOB_ID,
    rank,
    status,
    title: null,
    start_seconds: 100 - rank * 10,
    end_seconds: 105 - rank * 10,
    score: 0.5,
    updated_at: '2026-03-01T11:59:00.000Z',
  };
}

beforeEach(() => {
  dynamo.reset();
  dynamo.on(QueryCommand).resolves({ Items: [clipItem(1, 'processing'), clipItem(2, 'pending')] });
});

describe("a split job's clips", () => {
  it('are read beside the job, not after it', async () => {
    const jobRead = deferred();
    dynamo.on(GetCommand).callsFake(async () => {
      await jobRead.promise;
      return { Item: splitJobItem('processing') };
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
    dynamo.on(GetCommand).resolves({ Item: splitJobItem('processing') });
    await expect(getSplitJobResult(7, JOB_ID)).rejects.toMatchObject({ status: 409 });
  });
});
