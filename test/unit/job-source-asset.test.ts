import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { jobSourceAsset } from '#domain/assets/assets';
import { SPLIT_SOURCE } from '#domain/split-jobs/create-split-job';
import { SOURCE_IMAGE } from '#domain/video-jobs/create-video-job';
import { sortableId } from '#platform/ids';

process.env.TABLE_NAME = 'table';
process.env.AWS_REGION = 'us-east-1';

const dynamo = mockClient(DynamoDBDocumentClient);

const ORGANIZATION_ID = 7;
const assetId = sortableId('asset_', Date.parse('2026-03-01T12:00:00.000Z'));

function givenAsset(
  asset: {
    content_type: string;
    purpose: string;
    size_bytes?: number;
    status?: string;
    failure?: { code: string; message: string };
  } | null,
) {
  dynamo.on(GetCommand).resolves({
    Item: asset
      ? {
          asset_id: assetId,
          organization_id: ORGANIZATION_ID,
          filename: 'source',
          size_bytes: 1_000_000,
          status: 'uploaded',
          metadata: null,
          created_at: '2026-03-01T12:00:00.000Z',
          object_key: `assets/${ORGANIZATION_ID}/${assetId}`,
          ...asset,
        }
      : undefined,
  });
}

beforeEach(() => dynamo.reset());

describe("a job's source asset, checked by one function for both job types", () => {
  test.each([
    ['split', SPLIT_SOURCE],
    ['video', SOURCE_IMAGE],
  ] as const)('a %s job refuses an asset the organization does not have as not found', async (_, needs) => {
    givenAsset(null);
    await expect(jobSourceAsset(ORGANIZATION_ID, assetId, needs)).rejects.toMatchObject({
      code: 'ASSET_NOT_FOUND',
      message: `source_asset_id ${assetId} does not exist.`,
    });
  });

  test.each([
    ['split', SPLIT_SOURCE, { content_type: 'video/mp4', purpose: 'split_source', status: 'pending' }],
    ['video', SOURCE_IMAGE, { content_type: 'image/png', purpose: 'image_source', status: 'pending' }],
  ] as const)('a %s job refuses an asset whose upload is not confirmed', async (_, needs, asset) => {
    givenAsset(asset);
    await expect(jobSourceAsset(ORGANIZATION_ID, assetId, needs)).rejects.toMatchObject({
      code: 'ASSET_NOT_READY',
      message: `source_asset_id ${assetId} is pending; confirm its upload first.`,
    });
  });

  test.each([
    ['split', SPLIT_SOURCE, { content_type: 'video/mp4', purpose: 'split_source' }],
    ['video', SOURCE_IMAGE, { content_type: 'image/png', purpose: 'image_source' }],
  ] as const)(
    'a %s job refuses a failed asset saying why it failed and to upload the file again, not to confirm it',
    async (_, needs, asset) => {
      const failure = {
        code: 'ASSET_CONTENT_MISMATCH',
        message: `The uploaded bytes are not a ${asset.content_type} file.`,
      };
      givenAsset({ ...asset, status: 'failed', failure });
      const refusal = jobSourceAsset(ORGANIZATION_ID, assetId, needs);
      await expect(refusal).rejects.toMatchObject({
        code: 'ASSET_NOT_READY',
        message:
          `source_asset_id ${assetId} is failed: ${failure.message} ` +
          'Upload the file again as a new asset (POST /assets/upload-url) and use that one.',
      });
    },
  );

  it('says the same of a failed asset whose item records no reason', async () => {
    givenAsset({ content_type: 'video/mp4', purpose: 'split_source', status: 'failed' });
    await expect(jobSourceAsset(ORGANIZATION_ID, assetId, SPLIT_SOURCE)).rejects.toMatchObject({
      code: 'ASSET_NOT_READY',
      message:
        `source_asset_id ${assetId} is failed: its upload failed verification. ` +
        'Upload the file again as a new asset (POST /assets/upload-url) and use that one.',
    });
  });

  it('a split job names the purpose it takes', async () => {
    givenAsset({ content_type: 'video/mp4', purpose: 'video_source' });
    await expect(jobSourceAsset(ORGANIZATION_ID, assetId, SPLIT_SOURCE)).rejects.toMatchObject({
      code: 'ASSET_NOT_READY',
      message: `source_asset_id must be an asset with purpose split_source; ${assetId} has purpose video_source.`,
    });
  });

  it('a video job names the kind and purpose it takes, and the type and purpose it got', async () => {
    givenAsset({ content_type: 'video/mp4', purpose: 'general' });
    await expect(jobSourceAsset(ORGANIZATION_ID, assetId, SOURCE_IMAGE)).rejects.toMatchObject({
      code: 'ASSET_NOT_READY',
      message: `source_asset_id must be an image asset with purpose image_source; ${assetId} is video/mp4 with purpose general.`,
    });
  });

  it('a video job refuses an image larger than the video model reads, naming the limit', async () => {
    givenAsset({ content_type: 'image/png', purpose: 'image_source', size_bytes: 25_000_001 });
    await expect(jobSourceAsset(ORGANIZATION_ID, assetId, SOURCE_IMAGE)).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      message: `source_asset_id ${assetId} is an image of 25000001 bytes; a source image may have at most 25000000 bytes (25 MB).`,
    });
  });

  test.each([
    ['split', SPLIT_SOURCE, { content_type: 'video/mp4', purpose: 'split_source' }],
    ['video', SOURCE_IMAGE, { content_type: 'image/webp', purpose: 'image_source' }],
    ['video', SOURCE_IMAGE, { content_type: 'image/jpeg', purpose: 'general' }],
  ] as const)('a %s job takes a confirmed %j', async (_, needs, asset) => {
    givenAsset(asset);
    await expect(jobSourceAsset(ORGANIZATION_ID, assetId, needs)).resolves.toMatchObject({
      assetId,
      contentType: asset.content_type,
    });
  });
});
