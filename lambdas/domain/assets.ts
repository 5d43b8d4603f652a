import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  CopyObjectCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  NotFound,
  PutObjectCommand,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { dynamo, tableName } from '../store/dynamo';
import { mediaBucket, s3 } from '../store/s3';
import { ApiError } from './errors';
import { sortableId } from './ids';
import { matchesDeclaredType, SNIFF_BYTES, type MediaType } from './media-signatures';

export const ASSET_PURPOSES = ['split_source', 'video_source', 'image_source', 'general'] as const;
export type AssetPurpose = (typeof ASSET_PURPOSES)[number];
export type AssetStatus = 'pending' | 'uploaded' | 'failed';

/**
 * An upload URL must only be *started* before it expires (S3 checks the signature when the
 * request begins), so one hour leaves room for slow links to begin a 2 GB upload.
 */
export const UPLOAD_URL_TTL_SECONDS = 3600;
/** Download links are handed to one client for one download; they should not outlive that. */
export const DOWNLOAD_URL_TTL_SECONDS = 900;
/** Unconfirmed uploads are forgotten after two days (record TTL; the bucket's lifecycle rule matches). */
export const PENDING_ASSET_RETENTION_SECONDS = 2 * 86_400;

export interface Asset {
  assetId: string;
  organizationId: number;
  filename: string;
  contentType: MediaType;
  sizeBytes: number;
  purpose: AssetPurpose;
  status: AssetStatus;
  metadata: Record<string, unknown> | null;
  createdAt: string;
  /** Internal: where the bytes are. Never leaves the service. */
  objectKey: string;
  failure: { code: string; message: string } | null;
}

interface AssetItem {
  asset_id: string;
  organization_id: number;
  filename: string;
  content_type: MediaType;
  size_bytes: number;
  purpose: AssetPurpose;
  status: AssetStatus;
  metadata: Record<string, unknown> | null;
  created_at: string;
  object_key: string;
  failure?: { code: string; message: string } | null;
}

export function assetKey(organizationId: number, assetId: string) {
  return { pk: `ORG#${organizationId}`, sk: `ASSET#${assetId}` };
}

export const incomingObjectKey = (organizationId: number, assetId: string) => `incoming/${organizationId}/${assetId}`;
export const storedObjectKey = (organizationId: number, assetId: string) => `assets/${organizationId}/${assetId}`;
/** Scratch space of video providers; the finished file is copied to assets/ and this expires. */
export const renderObjectKey = (organizationId: number, jobId: string) =>
  `renders/${organizationId}/${jobId}/output.mp4`;

function fromItem(item: AssetItem): Asset {
  return {
    assetId: item.asset_id,
    organizationId: item.organization_id,
    filename: item.filename,
    contentType: item.content_type,
    sizeBytes: item.size_bytes,
    purpose: item.purpose,
    status: item.status,
    metadata: item.metadata,
    createdAt: item.created_at,
    objectKey: item.object_key,
    failure: item.failure ?? null,
  };
}

/** The Asset object of the API. */
export function presentAsset(asset: Asset) {
  return {
    id: asset.assetId,
    filename: asset.filename,
    content_type: asset.contentType,
    size_bytes: asset.sizeBytes,
    purpose: asset.purpose,
    status: asset.status,
    created_at: asset.createdAt,
    metadata: asset.metadata,
  };
}

export async function findAsset(organizationId: number, assetId: string): Promise<Asset | undefined> {
  if (!assetId.startsWith('asset_')) return undefined;
  const { Item } = await dynamo.send(
    new GetCommand({ TableName: tableName(), Key: assetKey(organizationId, assetId), ConsistentRead: true }),
  );
  return Item ? fromItem(Item as AssetItem) : undefined;
}

/** Another organization's asset and a missing one look the same: both are simply not found. */
export async function getAsset(organizationId: number, assetId: string): Promise<Asset> {
  const asset = await findAsset(organizationId, assetId);
  if (!asset) throw new ApiError('ASSET_NOT_FOUND', `No asset ${assetId} exists.`);
  return asset;
}

export interface UploadRequest {
  filename: string;
  content_type: MediaType;
  size_bytes: number;
  purpose: AssetPurpose;
  metadata?: Record<string, unknown>;
}

export async function createUpload(
  organizationId: number,
  maxUploadBytes: number,
  request: UploadRequest,
  now = new Date(),
) {
  if (request.size_bytes > maxUploadBytes) {
    throw new ApiError(
      'ASSET_UPLOAD_TOO_LARGE',
      `size_bytes ${request.size_bytes} exceeds this organization's max_asset_upload_size_bytes of ${maxUploadBytes}.`,
    );
  }
  const assetId = sortableId('asset_', now.getTime());
  const objectKey = incomingObjectKey(organizationId, assetId);
  const item: AssetItem = {
    asset_id: assetId,
    organization_id: organizationId,
    filename: request.filename,
    content_type: request.content_type,
    size_bytes: request.size_bytes,
    purpose: request.purpose,
    status: 'pending',
    metadata: request.metadata ?? null,
    created_at: now.toISOString(),
    object_key: objectKey,
  };
  const uploadUrl = await presignUpload(objectKey, request.content_type, request.size_bytes);
  await dynamo.send(
    new PutCommand({
      TableName: tableName(),
      Item: {
        ...assetKey(organizationId, assetId),
        ...item,
        expires_at: Math.floor(now.getTime() / 1000) + PENDING_ASSET_RETENTION_SECONDS,
      },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
  return {
    asset_id: assetId,
    upload_url: uploadUrl,
    upload_method: 'PUT' as const,
    upload_headers: { 'Content-Type': request.content_type },
    expires_at: new Date(now.getTime() + UPLOAD_URL_TTL_SECONDS * 1000).toISOString(),
  };
}

/**
 * Signs Content-Type and Content-Length into the URL, so S3 itself refuses an upload of any
 * other type or size. (The S3 presigner leaves Content-Type unsigned unless it is named here.)
 */
export function presignUpload(objectKey: string, contentType: string, sizeBytes: number): Promise<string> {
  return getSignedUrl(
    s3,
    new PutObjectCommand({ Bucket: mediaBucket(), Key: objectKey, ContentType: contentType, ContentLength: sizeBytes }),
    { expiresIn: UPLOAD_URL_TTL_SECONDS, signableHeaders: new Set(['content-type', 'content-length']) },
  );
}

async function headObject(objectKey: string) {
  try {
    return await s3.send(new HeadObjectCommand({ Bucket: mediaBucket(), Key: objectKey }));
  } catch (error) {
    if (error instanceof NotFound || (error instanceof S3ServiceException && error.$metadata.httpStatusCode === 404))
      return undefined;
    throw error;
  }
}

async function readHead(objectKey: string): Promise<Uint8Array> {
  const { Body } = await s3.send(
    new GetObjectCommand({ Bucket: mediaBucket(), Key: objectKey, Range: `bytes=0-${SNIFF_BYTES - 1}` }),
  );
  return Body ? Body.transformToByteArray() : new Uint8Array();
}

async function markFailed(asset: Asset, failure: { code: string; message: string }): Promise<never> {
  try {
    await dynamo.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: assetKey(asset.organizationId, asset.assetId),
        UpdateExpression: 'SET #status = :failed, failure = :failure',
        ConditionExpression: '#status = :pending',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':failed': 'failed', ':pending': 'pending', ':failure': failure },
      }),
    );
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
  }
  throw new ApiError('ASSET_CONTENT_MISMATCH', failure.message);
}

/**
 * Checks the uploaded object against the declaration (size, type, and the format its first
 * bytes reveal), then moves it out of `incoming/` so the lifecycle rule no longer applies.
 * Idempotent: an asset already confirmed is returned as it is.
 */
export async function confirmUpload(organizationId: number, assetId: string): Promise<Asset> {
  const asset = await getAsset(organizationId, assetId);
  if (asset.status === 'uploaded') return asset;
  if (asset.status === 'failed')
    throw new ApiError('ASSET_CONTENT_MISMATCH', asset.failure?.message ?? 'The upload failed verification.');

  const head = await headObject(asset.objectKey);
  if (!head) {
    throw new ApiError(
      'ASSET_NOT_UPLOADED',
      `Asset ${assetId} has no uploaded bytes yet: PUT the file to its upload_url, then confirm again.`,
    );
  }
  if (head.ContentLength !== asset.sizeBytes) {
    await markFailed(asset, {
      code: 'SIZE_MISMATCH',
      message: `The uploaded file has ${head.ContentLength} bytes, not the declared size_bytes ${asset.sizeBytes}.`,
    });
  }
  if (head.ContentType !== asset.contentType) {
    await markFailed(asset, {
      code: 'CONTENT_TYPE_MISMATCH',
      message: `The file was uploaded as ${head.ContentType ?? 'no type'}, not the declared ${asset.contentType}.`,
    });
  }
  if (!matchesDeclaredType(asset.contentType, await readHead(asset.objectKey))) {
    await markFailed(asset, {
      code: 'CONTENT_MISMATCH',
      message: `The uploaded bytes are not a ${asset.contentType} file.`,
    });
  }

  const storedKey = storedObjectKey(organizationId, assetId);
  await s3.send(
    new CopyObjectCommand({
      Bucket: mediaBucket(),
      Key: storedKey,
      CopySource: `${mediaBucket()}/${asset.objectKey}`,
      ContentType: asset.contentType,
      MetadataDirective: 'REPLACE',
    }),
  );
  let confirmed: Asset;
  try {
    const { Attributes } = await dynamo.send(
      new UpdateCommand({
        TableName: tableName(),
        Key: assetKey(organizationId, assetId),
        UpdateExpression: 'SET #status = :uploaded, object_key = :key REMOVE expires_at',
        ConditionExpression: '#status = :pending',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':uploaded': 'uploaded', ':pending': 'pending', ':key': storedKey },
        ReturnValues: 'ALL_NEW',
      }),
    );
    confirmed = fromItem(Attributes as AssetItem);
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return confirmUpload(organizationId, assetId);
    throw error;
  }
  await s3.send(new DeleteObjectCommand({ Bucket: mediaBucket(), Key: asset.objectKey }));
  return confirmed;
}

/** `filename*` carries the exact name; the plain `filename` is an ASCII fallback for old clients. */
export function contentDisposition(filename: string): string {
  const fallback = filename.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  const encoded = encodeURIComponent(filename).replace(
    /['()*]/g,
    (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `attachment; filename="${fallback}"; filename*=UTF-8''${encoded}`;
}

export async function presignDownload(asset: Asset, now = new Date()) {
  if (asset.status !== 'uploaded') {
    throw new ApiError(
      'ASSET_NOT_UPLOADED',
      asset.status === 'failed'
        ? `Asset ${asset.assetId} failed verification and cannot be downloaded.`
        : `Asset ${asset.assetId} has not been confirmed yet.`,
    );
  }
  const url = await getSignedUrl(
    s3,
    new GetObjectCommand({
      Bucket: mediaBucket(),
      Key: asset.objectKey,
      ResponseContentDisposition: contentDisposition(asset.filename),
      ResponseContentType: asset.contentType,
    }),
    { expiresIn: DOWNLOAD_URL_TTL_SECONDS },
  );
  return { url, expiresAt: new Date(now.getTime() + DOWNLOAD_URL_TTL_SECONDS * 1000).toISOString() };
}

export interface StoredOutput {
  organizationId: number;
  assetId: string;
  filename: string;
  contentType: MediaType;
  sizeBytes: number;
  metadata: Record<string, unknown> | null;
}

/**
 * The record of a file the service itself wrote under assets/ (a rendered video), for the
 * caller to put in the same transaction that finishes the job.
 */
export function generatedAssetRecord(output: StoredOutput, now = new Date()) {
  const item: AssetItem = {
    asset_id: output.assetId,
    organization_id: output.organizationId,
    filename: output.filename,
    content_type: output.contentType,
    size_bytes: output.sizeBytes,
    purpose: 'general',
    status: 'uploaded',
    metadata: output.metadata,
    created_at: now.toISOString(),
    object_key: storedObjectKey(output.organizationId, output.assetId),
  };
  return {
    key: assetKey(output.organizationId, output.assetId),
    item: { ...item } as Record<string, unknown>,
    assetId: output.assetId,
  };
}
