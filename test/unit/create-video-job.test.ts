import { DynamoDBDocumentClient, GetCommand, TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { TEAM_LIMITS } from '#domain/access/organizations';
import {
  createVideoJob,
  MAX_SOURCE_IMAGE_BYTES,
  type CreateVideoJobRequest,
} from '#domain/video-jobs/create-video-job';
import { sortableId } from '#platform/ids';
import { testCaller } from './support/api-caller';
import { keyOf } from './support/transactions';

process.env.TABLE_NAME = 'table';
process.env.AWS_REGION = 'us-east-1';

const dynamo = mockClient(DynamoDBDocumentClient);

const ORGANIZATION_ID = 7;
const caller = testCaller({
  apiKey: { keyPrefix: 'abcdefghjkmnpqrs' },
  organization: { organizationId: ORGANIZATION_ID },
  limits: TEAM_LIMITS,
});
const sourceId = sortableId('asset_', Date.parse('2026-03-01T12:00:00.000Z'));

function sourceImage(sizeBytes: number, status = 'uploaded') {
  dynamo.on(GetCommand).resolves({
    Item: {
      asset_id: sourceId,
      organization_id: ORGANIZATION_ID,
      filename: 'still.png',
      content_type: 'image/png',
      size_bytes: sizeBytes,
      purpose: 'image_source',
      status,
      metadata: null,
      created_at: '2026-03-01T12:00:00.000Z',
      object_key: `assets/${ORGANIZATION_ID}/${sourceId}`,
    },
  });
}

const request: CreateVideoJobRequest = {
  prompt: 'Slow zoom on the still',
  duration_seconds: 5,
  aspect_ratio: '16:9',
  model: 'auto',
};

beforeEach(() => {
  dynamo.reset();
  // Reaching the create transaction means every check on the source passed.
  dynamo.on(TransactWriteCommand).rejects(new Error('reached the create transaction'));
});

describe('the size of an image-to-video source', () => {
  it('is at most the 25 MB Amazon Nova Reel reads', () => {
    expect(MAX_SOURCE_IMAGE_BYTES).toBe(25_000_000);
  });

  it('refuses a larger image with 400 VALIDATION_FAILED naming source_asset_id and the limit, charging nothing', async () => {
    sourceImage(MAX_SOURCE_IMAGE_BYTES + 1);

    await expect(createVideoJob(caller, { ...request, source_asset_id: sourceId }, undefined)).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
      status: 400,
      message: expect.stringMatching(new RegExp(`^source_asset_id ${sourceId} .*${MAX_SOURCE_IMAGE_BYTES} bytes`)),
    });
    expect(dynamo.commandCalls(TransactWriteCommand)).toHaveLength(0);
  });

  it('refuses a larger image still pending the same way, before its upload is confirmed', async () => {
    sourceImage(2_147_483_648, 'pending');

    await expect(createVideoJob(caller, { ...request, source_asset_id: sourceId }, undefined)).rejects.toMatchObject({
      code: 'VALIDATION_FAILED',
    });
  });

  it('accepts an image of exactly the limit', async () => {
    sourceImage(MAX_SOURCE_IMAGE_BYTES);

    await expect(createVideoJob(caller, { ...request, source_asset_id: sourceId }, undefined)).rejects.toThrow(
      'reached the create transaction',
    );
  });
});

describe('the job a request creates', () => {
  it("records the calling key as the job's creator, and counts the job in that key's usage", async () => {
    await expect(createVideoJob(caller, request, undefined)).rejects.toThrow('reached the create transaction');

    const items = dynamo.commandCalls(TransactWriteCommand)[0]!.args[0].input.TransactItems ?? [];
    const sortKeys = items.map((item) => keyOf(item).sk);
    const job = items.find((item) => keyOf(item).sk.startsWith('JOB#'));
    expect(job!.Put!.Item).toMatchObject({ created_by_key: 'abcdefghjkmnpqrs' });
    expect(sortKeys).toContainEqual(expect.stringMatching(/^USAGE#KEY#abcdefghjkmnpqrs#/));
  });
});
