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
import { mediaBucket, s3 } from '#platform/clients/s3';
import { ApiError } from '#platform/errors';
import type { Asset } from './asset-store';
import { SNIFF_BYTES } from './media-signatures';

/** The S3 calls on the media bucket (media-layout.ts says where each kind of object lives). */

/**
 * An upload URL must only be *started* before it expires (S3 checks the signature when the
 * request begins), so one hour leaves room for slow links to begin a 2 GB upload.
 */
export const UPLOAD_URL_TTL_SECONDS = 3600;
/** Download links are handed to one client for one download; they should not outlive that. */
export const DOWNLOAD_URL_TTL_SECONDS = 900;

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

/** The object's metadata, or undefined when nothing is stored under the key. */
export async function headObject(objectKey: string) {
  try {
    return await s3.send(new HeadObjectCommand({ Bucket: mediaBucket(), Key: objectKey }));
  } catch (error) {
    if (error instanceof NotFound || (error instanceof S3ServiceException && error.$metadata.httpStatusCode === 404)) {
      return undefined;
    }
    throw error;
  }
}

/** The first bytes of an object: enough to recognise its format (media-signatures.ts). */
export async function readObjectHead(objectKey: string): Promise<Uint8Array> {
  const { Body } = await s3.send(
    new GetObjectCommand({ Bucket: mediaBucket(), Key: objectKey, Range: `bytes=0-${SNIFF_BYTES - 1}` }),
  );
  return Body ? Body.transformToByteArray() : new Uint8Array();
}

/** A server-side copy into the media bucket, with the content type the copy is stored with. */
export async function copyObject(source: { bucket: string; key: string }, targetKey: string, contentType: string) {
  await s3.send(
    new CopyObjectCommand({
      Bucket: mediaBucket(),
      Key: targetKey,
      CopySource: `${source.bucket}/${source.key}`,
      ContentType: contentType,
      MetadataDirective: 'REPLACE',
    }),
  );
}

export async function deleteObject(objectKey: string) {
  await s3.send(new DeleteObjectCommand({ Bucket: mediaBucket(), Key: objectKey }));
}
