import { S3Client } from '@aws-sdk/client-s3';
import { flagSetting, requiredSetting } from '#platform/settings';

let client: S3Client | undefined;

/**
 * One client per container, made on first use. Checksums only when required: otherwise the v3
 * SDK signs an empty-body CRC32 into presigned PUT URLs, and every real upload would fail it.
 */
export function s3(): S3Client {
  client ??= new S3Client({
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    forcePathStyle: flagSetting('s3ForcePathStyle'),
  });
  return client;
}

export function mediaBucket(): string {
  return requiredSetting('mediaBucketName');
}
