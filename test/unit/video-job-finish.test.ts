import { CopyObjectCommand, DeleteObjectCommand, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import { DynamoDBDocumentClient, GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { finishVideoJob, type RenderCompleted } from '#domain/video-jobs/render-steps';
import { sortableId } from '#platform/ids';
import { itemAt, refusedAt } from './support/transactions';

process.env.TABLE_NAME = 'table';
process.env.AWS_REGION = 'us-east-1';
process.env.MEDIA_BUCKET_NAME = 'media';

const dynamo = mockClient(DynamoDBDocumentClient);
const s3 = mockClient(S3Client);

const NOW = new Date('2026-03-01T12:00:00.000Z');
const JOB_ID = sortableId('video_job_', NOW.getTime() - 120_000);
const ASSET_ID = sortableId('asset_', NOW.getTime() - 110_000);
const JOB_KEY = { pk: 'ORG#7', sk: `JOB#${JOB_ID}` };
const ASSET_KEY = { pk: 'ORG#7', sk: `ASSET#${ASSET_ID}` };

function jobItem(overrides: Record<string, unknown> = {}) {
  return {
    ...JOB_KEY,
    job_id: JOB_ID,
    organization_id: 7,
    type: 'video',
    status: 'processing',
    progress: 99,
    created_at: '2026-03-01T11:58:00.000Z',
    updated_at: '2026-03-01T11:59:00.000Z',
    credits: { estimated: 10, charged: 10, refunded: 0 },
    input: { prompt: 'A lighthouse', duration_seconds: 5, aspect_ratio: '9:16', model: 'auto', mode: 'text_to_video' },
    metadata: null,
    output_asset_id: ASSET_ID,
    tracked: true,
    ...overrides,
  };
}

/** What FinishVideo hands on: the finished video under renders/. */
const FINISHED: RenderCompleted = {
  organization_id: 7,
  job_id: JOB_ID,
  outcome: 'completed',
  output_asset_id: ASSET_ID,
  output: {
    bucket: 'media',
    key: `renders/7/${JOB_ID}/finished.mp4`,
    contentType: 'video/mp4',
    sizeBytes: 1_000_000,
    durationSeconds: 5,
    width: 720,
    height: 1280,
  },
};

/** The table answers the job item's reads in turn (the last one from then on), and `asset` for the asset's. */
function tableHolds(jobs: Record<string, unknown>[], asset?: Record<string, unknown>) {
  let reads = 0;
  dynamo.on(GetCommand).callsFake((input: { Key: { sk: string } }) => {
    if (input.Key.sk === ASSET_KEY.sk) return { Item: asset };
    reads += 1;
    return { Item: jobs[Math.min(reads, jobs.length) - 1] };
  });
}

const copiedKeys = () => s3.commandCalls(CopyObjectCommand).map((call) => call.args[0].input.Key);
const deletedKeys = () => s3.commandCalls(DeleteObjectCommand).map((call) => call.args[0].input.Key);

beforeEach(() => {
  dynamo.reset();
  s3.reset();
  s3.on(CopyObjectCommand).resolves({});
  s3.on(DeleteObjectCommand).resolves({});
  dynamo.on(TransactWriteCommand).resolves({});
});

describe('the finish of a video job whose video is ready', () => {
  test('copies the video under assets/ before the transaction that records its asset, and deletes nothing', async () => {
    tableHolds([jobItem()]);

    await expect(finishVideoJob(FINISHED, NOW)).resolves.toMatchObject({ outcome: 'completed' });

    expect(copiedKeys()).toEqual([`assets/7/${ASSET_ID}`]);
    const [finish] = dynamo.commandCalls(TransactWriteCommand);
    expect(s3.commandCalls(CopyObjectCommand)[0]!.calledBefore(finish!)).toBe(true);
    const asset = itemAt(finish!.args[0].input.TransactItems!, ASSET_KEY);
    expect(asset.Put?.Item).toMatchObject({ object_key: `assets/7/${ASSET_ID}`, status: 'uploaded' });
    expect(deletedKeys()).toEqual([]);
  });

  test.each(['cancelled', 'expired', 'failed'])(
    'deletes exactly the copy it made when the job was %s meanwhile, as no asset points at it',
    async (status) => {
      tableHolds([jobItem(), jobItem({ status })]);
      dynamo.on(TransactWriteCommand).callsFake(refusedAt(JOB_KEY));

      await finishVideoJob(FINISHED, NOW);

      expect(copiedKeys()).toEqual([`assets/7/${ASSET_ID}`]);
      expect(deletedKeys()).toEqual(copiedKeys());
      expect(s3.commandCalls(DeleteObjectCommand)[0]!.args[0].input.Bucket).toBe('media');
    },
  );

  test('keeps the copy when an earlier run of the finish completed the job with it (a retried step)', async () => {
    tableHolds([jobItem({ status: 'completed' })], {
      ...ASSET_KEY,
      asset_id: ASSET_ID,
      organization_id: 7,
      filename: `${JOB_ID}.mp4`,
      content_type: 'video/mp4',
      size_bytes: 1_000_000,
      purpose: 'general',
      status: 'uploaded',
      created_at: NOW.toISOString(),
      object_key: `assets/7/${ASSET_ID}`,
    });

    await finishVideoJob(FINISHED, NOW);

    expect(dynamo.commandCalls(TransactWriteCommand)).toHaveLength(0);
    expect(copiedKeys()).toEqual([`assets/7/${ASSET_ID}`]);
    expect(deletedKeys()).toEqual([]);
  });

  test('a copy that cannot be deleted is logged with its key, and the finish still answers', async () => {
    tableHolds([jobItem({ status: 'cancelled' })]);
    s3.on(DeleteObjectCommand).rejects(
      new S3ServiceException({ name: 'AccessDenied', $fault: 'client', $metadata: { httpStatusCode: 403 } }),
    );
    const lines: string[] = [];
    const out = jest.spyOn(console, 'log').mockImplementation((line: string) => void lines.push(line));
    try {
      await expect(finishVideoJob(FINISHED, NOW)).resolves.toMatchObject({ outcome: 'completed' });
    } finally {
      out.mockRestore();
    }
    const line = lines.map((text) => JSON.parse(text) as Record<string, unknown>).find((entry) => entry.key);
    expect(line).toMatchObject({ level: 'warn', key: `assets/7/${ASSET_ID}` });
  });
});

describe('the finish of a video job whose work crashed', () => {
  test('fails the job and refunds all of its charge: nothing of a video job is delivered before it completes', async () => {
    tableHolds([jobItem()]);

    await expect(finishVideoJob({ organization_id: 7, job_id: JOB_ID, outcome: 'crashed' }, NOW)).resolves.toEqual({
      organization_id: 7,
      job_id: JOB_ID,
      outcome: 'failed',
    });

    const items = dynamo.commandCalls(TransactWriteCommand)[0]!.args[0].input.TransactItems!;
    expect(itemAt(items, JOB_KEY).Update?.ExpressionAttributeValues).toMatchObject({
      ':status': 'failed',
      ':refund': 10,
      ':error': { code: 'INTERNAL_ERROR' },
    });
    expect(itemAt(items, { pk: 'ORG#7', sk: 'ORG' }).Update?.ExpressionAttributeValues).toMatchObject({
      ':refund': 10,
    });
    expect(copiedKeys()).toEqual([]);
  });
});
