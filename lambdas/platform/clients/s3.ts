import { S3Client } from '@aws-sdk/client-s3';

/**
 * One client per container. Checksums only when required: otherwise the v3 SDK signs an
 * empty-body CRC32 into presigned PUT URLs, and every real upload would fail it.
 * Path-style addressing is for the local emulator only (it serves no bucket subdomains).
 */
export const s3 = new S3Client({
  requestChecksumCalculation: 'WHEN_REQUIRED',
  responseChecksumValidation: 'WHEN_REQUIRED',
  forcePathStyle: process.env.S3_FORCE_PATH_STYLE === 'true',
});

export function mediaBucket(): string {
  const name = process.env.MEDIA_BUCKET_NAME;
  if (!name) throw new Error('MEDIA_BUCKET_NAME is not set');
  return name;
}
