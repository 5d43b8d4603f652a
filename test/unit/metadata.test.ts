import { DynamoDBDocumentClient, GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { marshall } from '@aws-sdk/util-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { findAsset, putPendingAsset, type Asset } from '#domain/assets/asset-store';
import type { JobOf } from '#domain/jobs/job';
import { findJob, newJobPut } from '#domain/jobs/job-store';
import { sortableId } from '#platform/ids';
import { checkMetadataSize, MAX_METADATA_BYTES } from '#platform/metadata';

process.env.TABLE_NAME = 'table';
process.env.AWS_REGION = 'us-east-1';

const dynamo = mockClient(DynamoDBDocumentClient);

/** JSON that DynamoDB's own types cannot hold, as a client may send it. */
const UNMARSHALLABLE: [string, string][] = [
  ['a number beyond the safe integers', '{"n":1e20}'],
  ['a number smaller than DynamoDB can hold', '{"n":1e-200}'],
  ['a __proto__ key', '{"__proto__":{"a":1}}'],
  ['35 levels of nesting', `${'{"n":'.repeat(35)}1${'}'.repeat(35)}`],
  ['an empty key', '{"":1}'],
];

const job = (metadata: JobOf<'video'>['metadata']): JobOf<'video'> => ({
  jobId: 'video_job_1',
  organizationId: 7,
  type: 'video',
  status: 'queued',
  progress: 0,
  workStage: null,
  createdAt: '2026-03-01T12:00:00.000Z',
  updatedAt: '2026-03-01T12:00:00.000Z',
  credits: { estimated: 10, charged: 10, refunded: 0 },
  input: { prompt: 'A', duration_seconds: 5, aspect_ratio: '9:16', model: 'auto', mode: 'text_to_video' },
  metadata,
  outputAssetId: null,
  error: null,
  providerJobId: null,
  clipsCount: null,
  createdByKey: 'abcdefghjkmnpqrs',
  tracked: true,
});

const assetId = sortableId('asset_');
const asset = (metadata: Asset['metadata']): Asset => ({
  assetId,
  organizationId: 7,
  filename: 'clip.mp4',
  contentType: 'video/mp4',
  sizeBytes: 1000,
  purpose: 'general',
  status: 'pending',
  metadata,
  createdAt: '2026-03-01T12:00:00.000Z',
  objectKey: `incoming/7/${assetId}`,
  failure: null,
  videoProbe: null,
});

beforeEach(() => {
  dynamo.reset();
});

describe('job metadata in the table', () => {
  it.each(UNMARSHALLABLE)('keeps metadata with %s as one JSON string the table can store', async (_, text) => {
    const metadata = JSON.parse(text) as Record<string, unknown>;
    const item = newJobPut(job(metadata)).Put!.Item!;

    expect(item).not.toHaveProperty('metadata');
    expect(() => marshall(item, { removeUndefinedValues: true })).not.toThrow();

    dynamo.on(GetCommand).resolves({ Item: item });
    const read = await findJob(7, 'video_job_1');
    expect(read?.metadata).toEqual(metadata);
    expect(Object.getPrototypeOf(read?.metadata)).toBe(Object.prototype);
  });

  it('keeps external_id in its own attribute, for the job list filter', () => {
    const item = newJobPut(job({ external_id: 'order-1', n: 1e20 })).Put!.Item!;
    expect(item).toMatchObject({
      external_id: 'order-1',
      metadata_json: '{"external_id":"order-1","n":100000000000000000000}',
    });
  });

  it('writes no metadata attribute for a job without metadata, and reads it back as null', async () => {
    const item = newJobPut(job(null)).Put!.Item!;
    expect(item).not.toHaveProperty('metadata_json');

    dynamo.on(GetCommand).resolves({ Item: item });
    expect((await findJob(7, 'video_job_1'))?.metadata).toBeNull();
  });

  it.each([
    ['a map', { external_id: 'order-1', nested: { list: [1, 'two'] } }],
    ['null', null],
  ])('reads an item written before, whose metadata attribute is %s', async (_, metadata) => {
    // A job without metadata writes no metadata attribute: add the one items written before held.
    dynamo.on(GetCommand).resolves({ Item: { ...newJobPut(job(null)).Put!.Item!, metadata } });

    expect((await findJob(7, 'video_job_1'))?.metadata).toEqual(metadata);
  });
});

describe('asset metadata in the table', () => {
  it.each(UNMARSHALLABLE)('keeps metadata with %s as one JSON string the table can store', async (_, text) => {
    const metadata = JSON.parse(text) as Record<string, unknown>;
    dynamo.on(PutCommand).resolves({});
    await putPendingAsset(asset(metadata), 1_800_000_000);
    const item = dynamo.commandCalls(PutCommand)[0]!.args[0].input.Item!;

    expect(item).not.toHaveProperty('metadata');
    expect(() => marshall(item, { removeUndefinedValues: true })).not.toThrow();

    dynamo.on(GetCommand).resolves({ Item: item });
    const read = await findAsset(7, assetId);
    expect(read?.metadata).toEqual(metadata);
    expect(Object.getPrototypeOf(read?.metadata)).toBe(Object.prototype);
  });

  it('reads an item written before, whose metadata attribute is a map', async () => {
    dynamo.on(PutCommand).resolves({});
    await putPendingAsset(asset(null), 1_800_000_000);
    const earlier = dynamo.commandCalls(PutCommand)[0]!.args[0].input.Item!;
    dynamo.on(GetCommand).resolves({ Item: { ...earlier, metadata: { campaign: 'spring' } } });

    expect((await findAsset(7, assetId))?.metadata).toEqual({ campaign: 'spring' });
  });
});

describe('the metadata size bound', () => {
  const withJsonBytes = (bytes: number) => ({ notes: 'x'.repeat(bytes - JSON.stringify({ notes: '' }).length) });

  it('accepts metadata of exactly 8 KB as UTF-8 JSON, and none at all', () => {
    expect(() => checkMetadataSize(withJsonBytes(MAX_METADATA_BYTES))).not.toThrow();
    expect(() => checkMetadataSize(undefined)).not.toThrow();
  });

  it('refuses one byte more with VALIDATION_FAILED naming the field', () => {
    expect(() => checkMetadataSize(withJsonBytes(MAX_METADATA_BYTES + 1))).toThrow(
      expect.objectContaining({ code: 'VALIDATION_FAILED', message: expect.stringContaining('metadata') }),
    );
  });

  it('counts UTF-8 bytes, not characters', () => {
    expect(() => checkMetadataSize({ notes: 'é'.repeat(MAX_METADATA_BYTES / 2) })).toThrow(
      expect.objectContaining({ code: 'VALIDATION_FAILED' }),
    );
  });
});
