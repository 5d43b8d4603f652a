import { S3Client } from '@aws-sdk/client-s3';
import { requiredSetting, flagSetting, MEDIA_BUCKET_NAME, S3_FORCE_PATH_STYLE } from '#platform/settings';

let client: S3Client | undefined;

/**
 * One client per container, made on first use. Checksums only when required: otherwise the v3
 * SDK signs an empty-body CRC32 into presigned PUT URLs, and every real upload would fail it.
 */
export function s3(): S3Client {
  client ??= new S3Client({
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    forcePathStyle: flagSetting(S3_FORCE_PATH_STYLE),
  });
  return client;
}

export function mediaBucket(): string {
  return requiredSetting(MEDIA_BUCKET_NAME);
}
