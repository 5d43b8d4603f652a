import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { AssetPurpose, Metadata } from '#contract/types';
import { dynamo, tableName } from '#platform/clients/dynamodb';
import { isSortableId } from '#platform/ids';
import { metadataAttributes, metadataFromItem, type StoredMetadata } from '#platform/metadata';
import type { TransactionItem } from '#platform/transactions';
import type { MediaType } from './media-signatures';
import type { VideoProbe } from './video-probe';
import { organizationPartition } from '#platform/table-design';

/** The asset item: the one module that knows its keys, attributes and update expressions. */

export type { AssetPurpose };
export type AssetStatus = 'pending' | 'uploaded' | 'failed';

export interface AssetFailure {
  code: string;
  message: string;
}

export interface Asset {
  assetId: string;
  organizationId: number;
  filename: string;
  contentType: MediaType;
  sizeBytes: number;
  purpose: AssetPurpose;
  status: AssetStatus;
  metadata: Metadata | null;
  createdAt: string;
  /** Internal: where the bytes are. Never leaves the service. */
  objectKey: string;
  failure: AssetFailure | null;
  /** Internal: what ffprobe found in a confirmed video, once a split job asked (the bytes never change). */
  videoProbe: VideoProbe | null;
}

interface AssetItem extends StoredMetadata<Metadata> {
  asset_id: string;
  organization_id: number;
  filename: string;
  content_type: MediaType;
  size_bytes: number;
  purpose: AssetPurpose;
  status: AssetStatus;
  created_at: string;
  object_key: string;
  failure?: AssetFailure | null;
  video_probe?: VideoProbe;
}

export function assetKey(organizationId: number, assetId: string) {
  return { pk: organizationPartition(organizationId), sk: `ASSET#${assetId}` };
}

function fromItem(item: AssetItem): Asset {
  return {
    assetId: item.asset_id,
    organizationId: item.organization_id,
    filename: item.filename,
    contentType: item.content_type,
    sizeBytes: item.size_bytes,
    purpose: item.purpose,
    status: item.status,
    metadata: metadataFromItem(item),
    createdAt: item.created_at,
    objectKey: item.object_key,
    failure: item.failure ?? null,
    videoProbe: item.video_probe ?? null,
  };
}

function toItem(asset: Asset): AssetItem {
  return {
    asset_id: asset.assetId,
    organization_id: asset.organizationId,
    filename: asset.filename,
    content_type: asset.contentType,
    size_bytes: asset.sizeBytes,
    purpose: asset.purpose,
    status: asset.status,
    ...metadataAttributes(asset.metadata),
    created_at: asset.createdAt,
    object_key: asset.objectKey,
  };
}

export async function findAsset(organizationId: number, assetId: string): Promise<Asset | undefined> {
  if (!isSortableId('asset_', assetId)) return undefined;
  const { Item } = await dynamo().send(
    new GetCommand({ TableName: tableName(), Key: assetKey(organizationId, assetId), ConsistentRead: true }),
  );
  // The table holds what toItem wrote; this is where the stored shape meets its type.
  return Item ? fromItem(Item as AssetItem) : undefined;
}

/** A new pending asset, forgotten at `expiresAt` (Unix seconds) unless confirmed before. */
export async function putPendingAsset(asset: Asset, expiresAt: number): Promise<void> {
  await dynamo().send(
    new PutCommand({
      TableName: tableName(),
      Item: { ...assetKey(asset.organizationId, asset.assetId), ...toItem(asset), expires_at: expiresAt },
      ConditionExpression: 'attribute_not_exists(pk)',
    }),
  );
}

/** pending → failed, with the reason; an asset no longer pending is left as it is. */
export async function markAssetFailed(asset: Asset, failure: AssetFailure): Promise<void> {
  try {
    await dynamo().send(
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
}

/**
 * pending → uploaded, its bytes now at `objectKey`, and no longer forgotten. Answers undefined
 * when the asset was not pending any more (a concurrent confirmation won).
 */
export async function markAssetUploaded(asset: Asset, objectKey: string): Promise<Asset | undefined> {
  try {
    const { Attributes } = await dynamo().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: assetKey(asset.organizationId, asset.assetId),
        UpdateExpression: 'SET #status = :uploaded, object_key = :key REMOVE expires_at',
        ConditionExpression: '#status = :pending',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':uploaded': 'uploaded', ':pending': 'pending', ':key': objectKey },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return fromItem(Attributes as AssetItem);
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return undefined;
    throw error;
  }
}

/**
 * The record of a file the service itself wrote under assets/ (a rendered video), for the
 * transaction that finishes the job that made it.
 */
export function generatedAssetPut(
  asset: Omit<Asset, 'status' | 'purpose' | 'failure' | 'videoProbe'>,
): TransactionItem {
  const item = toItem({ ...asset, status: 'uploaded', purpose: 'general', failure: null, videoProbe: null });
  return {
    Put: {
      TableName: tableName(),
      Item: { ...assetKey(asset.organizationId, asset.assetId), ...item },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
}

/** Keeps what ffprobe found in a confirmed asset, so later jobs on it need not probe it again. */
export async function recordVideoProbe(asset: Asset, probe: VideoProbe): Promise<void> {
  await dynamo().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: assetKey(asset.organizationId, asset.assetId),
      UpdateExpression: 'SET video_probe = :probe',
      ConditionExpression: '#status = :uploaded',
      ExpressionAttributeNames: { '#status': 'status' },
      ExpressionAttributeValues: { ':probe': probe, ':uploaded': 'uploaded' },
    }),
  );
}
