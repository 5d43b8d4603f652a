import { ApiError } from './errors';

/** The client's free-form `metadata` of a job or an asset: any JSON object, returned as it was sent. */

export const MAX_METADATA_BYTES = 8 * 1024;

/** Refuses metadata over 8 KB as UTF-8 JSON: the spec's bound for video jobs, which assets share. */
export function checkMetadataSize(metadata: object | null | undefined): void {
  if (metadata && Buffer.byteLength(JSON.stringify(metadata), 'utf8') > MAX_METADATA_BYTES) {
    throw new ApiError('VALIDATION_FAILED', `metadata must be at most ${MAX_METADATA_BYTES} bytes as JSON.`);
  }
}

/**
 * How an item holds metadata. `metadata_json` is the JSON text: DynamoDB's number and map types
 * cannot hold every JSON object (integers past 2^53, which the SDK will not convert, magnitudes
 * outside 1e-130..1e126, maps nested deeper than 32 levels, empty map keys), and JSON.parse makes
 * a `__proto__` key an own property, never a prototype. `metadata` is the map that items written
 * before held instead.
 */
export interface StoredMetadata<T extends object> {
  metadata_json?: string;
  metadata?: T | null;
}

export function metadataAttributes<T extends object>(metadata: T | null): StoredMetadata<T> {
  return metadata === null ? {} : { metadata_json: JSON.stringify(metadata) };
}

export function metadataFromItem<T extends object>(item: StoredMetadata<T>): T | null {
  if (item.metadata_json !== undefined) return JSON.parse(item.metadata_json) as T;
  return item.metadata ?? null;
}
