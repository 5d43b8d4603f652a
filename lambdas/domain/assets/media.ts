import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  NoSuchKey,
  NotFound,
  PutObjectCommand,
  S3ServiceException,
  UploadPartCopyCommand,
  type CompletedPart,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { mediaBucket, s3 } from '#platform/clients/s3';
import { ApiError } from '#platform/errors';
import { log } from '#platform/log';
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
    s3(),
    new PutObjectCommand({ Bucket: mediaBucket(), Key: objectKey, ContentType: contentType, ContentLength: sizeBytes }),
    { expiresIn: UPLOAD_URL_TTL_SECONDS, signableHeaders: new Set(['content-type', 'content-length']) },
  );
}

/** Bytes a `filename*` value (RFC 8187 attr-char) may carry as they are: letters, digits and `!-._~`. */
const PLAIN_FILENAME_BYTE = /^[A-Za-z0-9!\-._~]$/;

/**
 * The Content-Disposition of a download, as RFC 6266 writes one: `filename*` carries the exact
 * name, its UTF-8 bytes percent-encoded; the quoted `filename` is an ASCII fallback for clients
 * that read only that, one `_` for each character a quoted string cannot hold as it is (beyond
 * printable ASCII, `"` and `\`) and for `%`, which some clients percent-decode there. Every
 * stored name gets one, even one from before requests had to be Unicode text that holds an
 * unpaired surrogate (encodeURIComponent throws on it): having no UTF-8 form, it is written as
 * the bytes of U+FFFD, as Buffer writes it.
 */
export function contentDisposition(filename: string): string {
  // With the `u` flag a character beyond the BMP is one match, one `_`.
  const fallback = filename.replace(/[^\x20-\x7e]|["\\%]/gu, '_');
  let encoded = '';
  for (const byte of Buffer.from(filename, 'utf8')) {
    const character = String.fromCharCode(byte);
    encoded += PLAIN_FILENAME_BYTE.test(character) ? character : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
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
  return presignFileDownload(asset, now);
}

/**
 * A GET URL for ffmpeg or ffprobe to read a stored object with ranged requests. S3 checks the
 * expiry on every request, and a long analysis makes requests for up to 15 minutes.
 */
export const MEDIA_TOOL_URL_TTL_SECONDS = 3600;

export function presignMediaToolRead(objectKey: string): Promise<string> {
  return getSignedUrl(s3(), new GetObjectCommand({ Bucket: mediaBucket(), Key: objectKey }), {
    expiresIn: MEDIA_TOOL_URL_TTL_SECONDS,
  });
}

/** A download URL for a file the service wrote (a clip, its thumbnail or captions), named for the client. */
export async function presignFileDownload(
  file: { objectKey: string; filename: string; contentType: string },
  now = new Date(),
) {
  const url = await getSignedUrl(
    s3(),
    new GetObjectCommand({
      Bucket: mediaBucket(),
      Key: file.objectKey,
      ResponseContentDisposition: contentDisposition(file.filename),
      ResponseContentType: file.contentType,
    }),
    { expiresIn: DOWNLOAD_URL_TTL_SECONDS },
  );
  return { url, expiresAt: new Date(now.getTime() + DOWNLOAD_URL_TTL_SECONDS * 1000).toISOString() };
}

const hasStatus = (error: unknown, status: number) =>
  error instanceof S3ServiceException && error.$metadata.httpStatusCode === status;

/** One version of an object, as a read of it saw it: later copies are bound to its ETag. */
export interface InspectedObject {
  key: string;
  etag: string;
  sizeBytes: number;
}

/** An upload as one read saw it: its version, its type, and its first bytes (all of them when fewer). */
export interface UploadedObject extends InspectedObject {
  contentType: string | undefined;
  /** The first SNIFF_BYTES bytes: enough to recognise the format (media-signatures.ts). */
  head: Uint8Array;
}

/**
 * The upload under `objectKey` in one ranged GET, which answers what HeadObject would (ETag, type,
 * and the size in Content-Range) together with the first bytes, all of one version. Undefined
 * when S3 answers that nothing is stored under the key; a 403, which may mean the same
 * (isRefusalOfMissingKey), is thrown as it came.
 */
export async function readUpload(objectKey: string): Promise<UploadedObject | undefined> {
  try {
    const read = await s3().send(
      new GetObjectCommand({ Bucket: mediaBucket(), Key: objectKey, Range: `bytes=0-${SNIFF_BYTES - 1}` }),
    );
    if (!read.ETag) throw new Error(`GetObject of ${objectKey} returned no ETag`);
    const head = read.Body ? await read.Body.transformToByteArray() : new Uint8Array();
    return {
      key: objectKey,
      etag: read.ETag,
      sizeBytes: totalBytesOf(read.ContentRange) ?? head.byteLength,
      contentType: read.ContentType,
      head,
    };
  } catch (error) {
    if (hasStatus(error, 416)) return readEmptyUpload(objectKey);
    return absentOrThrow(error);
  }
}

/** Undefined when `error` says that nothing is stored under `objectKey`; otherwise throws it. */
function absentOrThrow(error: unknown): undefined {
  if (error instanceof NoSuchKey || error instanceof NotFound || hasStatus(error, 404)) return undefined;
  throw error;
}

/**
 * Whether a read's `error` is a 403 for a key where nothing is stored. S3 answers 404 for a
 * missing key only to a caller that may list the whole bucket; a caller that may list only under
 * the key's prefix (media.incoming:inspect) gets 403, as for a real denial. A listing of exactly
 * the key tells the two apart.
 */
export async function isRefusalOfMissingKey(error: unknown, objectKey: string): Promise<boolean> {
  return hasStatus(error, 403) && !(await isListed(objectKey));
}

/** The whole size in a Content-Range (`bytes 0-63/1000` → 1000); undefined without one. */
function totalBytesOf(contentRange: string | undefined): number | undefined {
  const total = contentRange?.match(/\/(\d+)$/)?.[1];
  return total === undefined ? undefined : Number(total);
}

/**
 * S3 answers a range of an empty object with 416, and no ETag. HeadObject gives the metadata; a
 * version with bytes again (a PUT in between) is read again from the start.
 */
async function readEmptyUpload(objectKey: string): Promise<UploadedObject | undefined> {
  let metadata;
  try {
    metadata = await s3().send(new HeadObjectCommand({ Bucket: mediaBucket(), Key: objectKey }));
  } catch (error) {
    return absentOrThrow(error);
  }
  if (metadata.ContentLength !== 0) return readUpload(objectKey);
  if (!metadata.ETag) throw new Error(`HeadObject of ${objectKey} returned no ETag`);
  return {
    key: objectKey,
    etag: metadata.ETag,
    sizeBytes: 0,
    contentType: metadata.ContentType,
    head: new Uint8Array(),
  };
}

/** Keys are listed in order, so the first key starting with `objectKey` is the key itself when it exists. */
async function isListed(objectKey: string): Promise<boolean> {
  const { Contents } = await s3().send(
    new ListObjectsV2Command({ Bucket: mediaBucket(), Prefix: objectKey, MaxKeys: 1 }),
  );
  return Contents?.[0]?.Key === objectKey;
}

/**
 * Thrown by the copies bound to an inspected version when the object under the key is no longer
 * that version: `replaced` by another PUT (the ETag precondition failed), or `missing`.
 */
export class ObjectChangedError extends Error {
  constructor(
    readonly objectKey: string,
    readonly change: 'replaced' | 'missing',
  ) {
    super(`The object ${objectKey} is ${change === 'replaced' ? 'not the version inspected any more' : 'gone'}`);
    this.name = 'ObjectChangedError';
  }
}

function asObjectChange(error: unknown, objectKey: string): unknown {
  if (!(error instanceof S3ServiceException)) return error;
  if (error.$metadata.httpStatusCode === 412) return new ObjectChangedError(objectKey, 'replaced');
  if (error.name === 'NoSuchKey') return new ObjectChangedError(objectKey, 'missing');
  return error;
}

/**
 * Part size of a multipart copy. API Gateway gives a request 29 s, and one CopyObject of a
 * multi-gigabyte object can take longer; parts copied all at once take about as long as one part.
 * Below one part, one CopyObject is fewer calls for the same time.
 */
export const COPY_PART_BYTES = 64 * 1024 * 1024;
/** The SDK's default socket pool: parts beyond it would wait for a socket, not copy in parallel. */
export const MAX_COPY_PARTS = 50;

export interface CopyPart {
  partNumber: number;
  firstByte: number;
  lastByte: number;
}

/**
 * The byte ranges of a copy in parts: at most MAX_COPY_PARTS, each COPY_PART_BYTES or more but the
 * last (S3: parts of 5 MiB to 5 GiB, the last smaller, at most 10,000).
 */
export function planCopyParts(sizeBytes: number): CopyPart[] {
  const partBytes = Math.max(COPY_PART_BYTES, Math.ceil(sizeBytes / MAX_COPY_PARTS));
  const parts: CopyPart[] = [];
  for (let firstByte = 0; firstByte < sizeBytes; firstByte += partBytes) {
    parts.push({ partNumber: parts.length + 1, firstByte, lastByte: Math.min(firstByte + partBytes, sizeBytes) - 1 });
  }
  return parts;
}

/**
 * Copies the inspected version of an object to `targetKey`, with the content type the copy is
 * stored with. Every read of the source carries the inspected ETag (CopySourceIfMatch), so another
 * version is never copied: that ends in ObjectChangedError, as does a source that is gone.
 */
export async function copyInspectedObject(source: InspectedObject, targetKey: string, contentType: string) {
  const parts = planCopyParts(source.sizeBytes);
  try {
    if (parts.length === 1) await copyObject({ bucket: mediaBucket(), ...source }, targetKey, contentType);
    else await copyInParts(source, targetKey, contentType, parts);
  } catch (error) {
    throw asObjectChange(error, source.key);
  }
}

async function copyInParts(source: InspectedObject, targetKey: string, contentType: string, parts: CopyPart[]) {
  const bucket = mediaBucket();
  const { UploadId } = await s3().send(
    new CreateMultipartUploadCommand({ Bucket: bucket, Key: targetKey, ContentType: contentType }),
  );
  if (!UploadId) throw new Error(`CreateMultipartUpload of ${targetKey} returned no UploadId`);
  // Settled, not failed fast: a part still being copied when the upload is aborted may be kept
  // (and billed), so the abort waits for every part.
  const copies = await Promise.allSettled(
    parts.map(async ({ partNumber, firstByte, lastByte }): Promise<CompletedPart> => {
      const { CopyPartResult } = await s3().send(
        new UploadPartCopyCommand({
          Bucket: bucket,
          Key: targetKey,
          UploadId,
          PartNumber: partNumber,
          CopySource: `${bucket}/${source.key}`,
          CopySourceIfMatch: source.etag,
          CopySourceRange: `bytes=${firstByte}-${lastByte}`,
        }),
      );
      return { PartNumber: partNumber, ETag: CopyPartResult?.ETag };
    }),
  );
  try {
    const completed = copies.map((copy) => {
      if (copy.status === 'rejected') throw copy.reason;
      return copy.value;
    });
    await s3().send(
      new CompleteMultipartUploadCommand({
        Bucket: bucket,
        Key: targetKey,
        UploadId,
        MultipartUpload: { Parts: completed },
      }),
    );
  } catch (error) {
    try {
      await s3().send(new AbortMultipartUploadCommand({ Bucket: bucket, Key: targetKey, UploadId }));
    } catch (abortError) {
      // The bucket's lifecycle rule removes incomplete uploads after a day; the copy's own error is the one to report.
      log('warn', 'Could not abort a failed multipart copy', { key: targetKey, error: abortError });
    }
    throw error;
  }
}

/**
 * A server-side copy into the media bucket, with the content type the copy is stored with; of the
 * version with `etag` only, when one is given.
 */
export async function copyObject(
  source: { bucket: string; key: string; etag?: string },
  targetKey: string,
  contentType: string,
) {
  await s3().send(
    new CopyObjectCommand({
      Bucket: mediaBucket(),
      Key: targetKey,
      CopySource: `${source.bucket}/${source.key}`,
      CopySourceIfMatch: source.etag,
      ContentType: contentType,
      MetadataDirective: 'REPLACE',
    }),
  );
}

export async function deleteObject(objectKey: string) {
  await s3().send(new DeleteObjectCommand({ Bucket: mediaBucket(), Key: objectKey }));
}

/**
 * Deletes the objects a step wrote for a result that was then refused (its job or clip ended
 * otherwise meanwhile), under prefixes no lifecycle rule expires. Best effort: the step's outcome
 * does not depend on it, so an object that cannot be deleted is logged, with its key, and left.
 */
export async function discardObjects(objectKeys: readonly string[]): Promise<void> {
  const deletions = await Promise.allSettled(objectKeys.map((objectKey) => deleteObject(objectKey)));
  deletions.forEach((deletion, index) => {
    if (deletion.status === 'rejected') {
      log('warn', 'An object written for a refused result could not be deleted; it stays', {
        key: objectKeys[index],
        error: deletion.reason,
      });
    }
  });
}

/** Uploads a file the service made (a rendered clip) from disk, streamed; answers its size. */
export async function putFile(objectKey: string, path: string, contentType: string): Promise<number> {
  const { size } = await stat(path);
  await s3().send(
    new PutObjectCommand({
      Bucket: mediaBucket(),
      Key: objectKey,
      Body: createReadStream(path),
      ContentLength: size,
      ContentType: contentType,
    }),
  );
  return size;
}

/**
 * Bytes `start` to `end` (inclusive) of an intermediate object, fewer where it ends sooner, none
 * where it ends before `start`.
 */
export async function getObjectRange(objectKey: string, start: number, end: number): Promise<Uint8Array> {
  try {
    const { Body } = await s3().send(
      new GetObjectCommand({ Bucket: mediaBucket(), Key: objectKey, Range: `bytes=${start}-${end}` }),
    );
    return Body ? await Body.transformToByteArray() : new Uint8Array();
  } catch (error) {
    if (error instanceof S3ServiceException && error.$metadata.httpStatusCode === 416) return new Uint8Array();
    throw error;
  }
}

/** Intermediate results between workflow steps, too large for the execution's state. */
export async function putJson(objectKey: string, value: unknown): Promise<void> {
  await s3().send(
    new PutObjectCommand({
      Bucket: mediaBucket(),
      Key: objectKey,
      Body: JSON.stringify(value),
      ContentType: 'application/json',
    }),
  );
}

export async function getJson<T>(objectKey: string): Promise<T> {
  const { Body } = await s3().send(new GetObjectCommand({ Bucket: mediaBucket(), Key: objectKey }));
  if (!Body) throw new Error(`${objectKey} has no body`);
  return JSON.parse(await Body.transformToString('utf8')) as T;
}
