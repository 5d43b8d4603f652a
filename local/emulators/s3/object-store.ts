import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { copyFile, mkdir, open, readdir, readFile, rename, rm, stat, unlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Readable, Transform } from 'node:stream';
import { noSuchBucket, noSuchKey, noSuchUpload, S3Error } from './errors';

/**
 * Buckets, objects and multipart uploads kept as files, every body streamed to and from disk, so
 * an object of any size costs no more memory than a small one. An object is two files: its bytes
 * under `blobs/`, and its metadata under `objects/`, named by the key's hash. A write lands in a
 * new blob and then renames the metadata into place, so a reader sees the old object or the new
 * one, never a half-written one, and nothing is left of a write that failed.
 */

export interface ObjectMetadata {
  key: string;
  sizeBytes: number;
  /** Quoted, as S3 sends it: the MD5 of the bytes, or of the parts' MD5s with `-<parts>`. */
  etag: string;
  lastModified: string;
  contentType: string;
  contentDisposition?: string;
  /** `x-amz-meta-*` headers, names lower-case without the prefix. */
  userMetadata: Record<string, string>;
  blob: string;
}

export type ObjectAttributes = Pick<ObjectMetadata, 'contentType' | 'contentDisposition' | 'userMetadata'>;

interface UploadRecord extends ObjectAttributes {
  key: string;
  initiated: string;
}

export interface StoredPart {
  partNumber: number;
  etag: string;
  sizeBytes: number;
}

/** S3's bounds on multipart uploads. */
export const MIN_PART_BYTES = 5 * 1024 * 1024;
export const MAX_PART_NUMBER = 10_000;
/** The largest single PUT S3 takes. */
export const MAX_PUT_BYTES = 5 * 1024 ** 3;

const BUCKET_NAME = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
const UPLOAD_ID = /^[0-9a-f]{32}$/;
const quoted = (hex: string) => `"${hex}"`;
const keyHash = (key: string) => createHash('sha256').update(key, 'utf8').digest('hex');

/** How a body on its way in is checked before it is kept: the digests it must have, if any. */
export interface IncomingBody {
  source: Readable;
  /** Decoding and checks on the way, in order. */
  transforms: Transform[];
  /** Filled in once the stream has ended: the checks that need what came last (trailers). */
  verify?: (received: { md5: Buffer; sizeBytes: number }) => void;
}

/** A pass-through that shows every chunk to `see` on its way; `see` refuses a chunk by throwing. */
export function tap(see: (chunk: Buffer) => void): Transform {
  return new Transform({
    transform(chunk: Buffer, _encoding, callback) {
      try {
        see(chunk);
        callback(null, chunk);
      } catch (error) {
        callback(error as Error);
      }
    },
  });
}

export class ObjectStore {
  /** Per key, the commit under way: the metadata swap and the old blob's removal run one at a time. */
  private readonly commits = new Map<string, Promise<unknown>>();

  constructor(private readonly root: string) {}

  async open(): Promise<void> {
    await rm(join(this.root, 'tmp'), { recursive: true, force: true });
    await mkdir(join(this.root, 'tmp'), { recursive: true });
    await mkdir(join(this.root, 'buckets'), { recursive: true });
  }

  private bucketDir(bucket: string) {
    return join(this.root, 'buckets', bucket);
  }

  private metadataFile(bucket: string, key: string) {
    return join(this.bucketDir(bucket), 'objects', `${keyHash(key)}.json`);
  }

  private blobFile(bucket: string, blob: string) {
    return join(this.bucketDir(bucket), 'blobs', blob);
  }

  private uploadDir(bucket: string, uploadId: string) {
    if (!UPLOAD_ID.test(uploadId)) throw noSuchUpload();
    return join(this.bucketDir(bucket), 'uploads', uploadId);
  }

  private tempFile() {
    return join(this.root, 'tmp', randomBytes(16).toString('hex'));
  }

  async createBucket(bucket: string): Promise<void> {
    if (!BUCKET_NAME.test(bucket)) throw new S3Error(400, 'InvalidBucketName', 'The specified bucket is not valid.');
    for (const folder of ['objects', 'blobs', 'uploads']) {
      await mkdir(join(this.bucketDir(bucket), folder), { recursive: true });
    }
  }

  async bucketExists(bucket: string): Promise<boolean> {
    if (!BUCKET_NAME.test(bucket)) return false;
    return stat(join(this.bucketDir(bucket), 'objects')).then(
      () => true,
      () => false,
    );
  }

  async requireBucket(bucket: string): Promise<void> {
    if (!(await this.bucketExists(bucket))) throw noSuchBucket();
  }

  async head(bucket: string, key: string): Promise<ObjectMetadata | undefined> {
    try {
      return JSON.parse(await readFile(this.metadataFile(bucket, key), 'utf8')) as ObjectMetadata;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  /**
   * Opens the object and lets `plan` choose, from the metadata of the very version opened, the
   * bytes to stream (inclusive), or none; `plan` throws to refuse (a precondition, a range). The
   * blob is opened before its metadata is trusted: a write that replaced it a moment ago is read again.
   */
  async read(
    bucket: string,
    key: string,
    plan: (metadata: ObjectMetadata) => { first: number; last: number } | 'none',
  ): Promise<{ metadata: ObjectMetadata; stream?: Readable }> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const metadata = await this.head(bucket, key);
      if (!metadata) break;
      const handle = await open(this.blobFile(bucket, metadata.blob), 'r').catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT') return undefined;
        throw error;
      });
      if (!handle) continue;
      let bytes: ReturnType<typeof plan>;
      try {
        bytes = plan(metadata);
      } catch (error) {
        await handle.close();
        throw error;
      }
      if (bytes === 'none' || bytes.last < bytes.first) {
        await handle.close();
        return { metadata, ...(bytes === 'none' ? {} : { stream: Readable.from([]) }) };
      }
      return { metadata, stream: handle.createReadStream({ start: bytes.first, end: bytes.last }) };
    }
    await this.requireBucket(bucket);
    throw noSuchKey();
  }

  /** Streams `body` to a new file; answers its path, size and MD5 once `body.verify` accepted it. */
  private async receive(body: IncomingBody, maxBytes: number) {
    const path = this.tempFile();
    const md5 = createHash('md5');
    let sizeBytes = 0;
    const digest = tap((chunk) => {
      sizeBytes += chunk.length;
      if (sizeBytes > maxBytes) {
        throw new S3Error(400, 'EntityTooLarge', 'Your proposed upload exceeds the maximum allowed size');
      }
      md5.update(chunk);
    });
    try {
      await pipeline([body.source, ...body.transforms, digest, createWriteStream(path)]);
      const md5Digest = md5.digest();
      body.verify?.({ md5: md5Digest, sizeBytes });
      return { path, sizeBytes, md5: md5Digest };
    } catch (error) {
      await rm(path, { force: true });
      throw error;
    }
  }

  /** Runs `commit` after any commit of the same key under way, so that none undoes another. */
  private async serialized<T>(bucket: string, key: string, commit: () => Promise<T>): Promise<T> {
    const id = `${bucket}/${key}`;
    const previous = this.commits.get(id) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(commit);
    this.commits.set(id, next);
    try {
      return await next;
    } finally {
      if (this.commits.get(id) === next) this.commits.delete(id);
    }
  }

  /** Makes the file at `path` the object's bytes, and the metadata its metadata; removes what it replaced. */
  private async commit(bucket: string, path: string, metadata: Omit<ObjectMetadata, 'blob'>): Promise<ObjectMetadata> {
    const blob = randomBytes(16).toString('hex');
    const stored: ObjectMetadata = { ...metadata, blob };
    await rename(path, this.blobFile(bucket, blob));
    return this.serialized(bucket, metadata.key, async () => {
      const previous = await this.head(bucket, metadata.key);
      const temp = this.tempFile();
      await writeFile(temp, JSON.stringify(stored));
      await rename(temp, this.metadataFile(bucket, metadata.key));
      if (previous) await unlink(this.blobFile(bucket, previous.blob)).catch(() => undefined);
      return stored;
    });
  }

  async put(bucket: string, key: string, body: IncomingBody, attributes: ObjectAttributes): Promise<ObjectMetadata> {
    await this.requireBucket(bucket);
    const received = await this.receive(body, MAX_PUT_BYTES);
    return this.commit(bucket, received.path, {
      key,
      sizeBytes: received.sizeBytes,
      etag: quoted(received.md5.toString('hex')),
      lastModified: new Date().toISOString(),
      ...attributes,
    });
  }

  /** A server-side copy of bytes `first`..`last` of an object (all of it when no range is given). */
  private async copyBytes(bucket: string, source: ObjectMetadata, range?: { first: number; last: number }) {
    const path = this.tempFile();
    const sourceFile = this.blobFile(bucket, source.blob);
    try {
      if (!range) {
        await copyFile(sourceFile, path);
        return { path, sizeBytes: source.sizeBytes, md5: undefined };
      }
      const md5 = createHash('md5');
      await pipeline(
        createReadStream(sourceFile, { start: range.first, end: range.last }),
        tap((chunk) => md5.update(chunk)),
        createWriteStream(path),
      );
      return { path, sizeBytes: range.last - range.first + 1, md5: md5.digest() };
    } catch (error) {
      await rm(path, { force: true });
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw noSuchKey();
      throw error;
    }
  }

  async copy(
    bucket: string,
    source: ObjectMetadata,
    sourceBucket: string,
    key: string,
    attributes: ObjectAttributes,
  ): Promise<ObjectMetadata> {
    await this.requireBucket(bucket);
    const copied = await this.copyBytes(sourceBucket, source);
    return this.commit(bucket, copied.path, {
      key,
      sizeBytes: copied.sizeBytes,
      etag: source.etag,
      lastModified: new Date().toISOString(),
      ...attributes,
    });
  }

  async delete(bucket: string, key: string): Promise<void> {
    await this.requireBucket(bucket);
    await this.serialized(bucket, key, async () => {
      const previous = await this.head(bucket, key);
      if (!previous) return;
      await unlink(this.metadataFile(bucket, key)).catch(() => undefined);
      await unlink(this.blobFile(bucket, previous.blob)).catch(() => undefined);
    });
  }

  /** Every object under `prefix`, in the byte order of their keys (UTF-8), as S3 lists them. */
  async list(bucket: string, prefix: string): Promise<ObjectMetadata[]> {
    await this.requireBucket(bucket);
    const folder = join(this.bucketDir(bucket), 'objects');
    const found: ObjectMetadata[] = [];
    for (const name of await readdir(folder)) {
      if (!name.endsWith('.json')) continue;
      const metadata = await readFile(join(folder, name), 'utf8').then(
        (text) => JSON.parse(text) as ObjectMetadata,
        () => undefined,
      );
      if (metadata?.key.startsWith(prefix)) found.push(metadata);
    }
    return found.sort((a, b) => Buffer.compare(Buffer.from(a.key), Buffer.from(b.key)));
  }

  async createUpload(bucket: string, key: string, attributes: ObjectAttributes): Promise<string> {
    await this.requireBucket(bucket);
    const uploadId = randomBytes(16).toString('hex');
    const folder = this.uploadDir(bucket, uploadId);
    await mkdir(folder, { recursive: true });
    const record: UploadRecord = { key, initiated: new Date().toISOString(), ...attributes };
    await writeFile(join(folder, 'upload.json'), JSON.stringify(record));
    return uploadId;
  }

  private async upload(bucket: string, key: string, uploadId: string): Promise<UploadRecord> {
    await this.requireBucket(bucket);
    const folder = this.uploadDir(bucket, uploadId);
    const record = await readFile(join(folder, 'upload.json'), 'utf8').then(
      (text) => JSON.parse(text) as UploadRecord,
      () => undefined,
    );
    if (!record || record.key !== key) throw noSuchUpload();
    return record;
  }

  private async keepPart(bucket: string, uploadId: string, partNumber: number, path: string, part: StoredPart) {
    const folder = this.uploadDir(bucket, uploadId);
    await rename(path, join(folder, `part-${partNumber}.bin`));
    await writeFile(join(folder, `part-${partNumber}.json`), JSON.stringify(part));
  }

  async putPart(bucket: string, key: string, uploadId: string, partNumber: number, body: IncomingBody) {
    await this.upload(bucket, key, uploadId);
    const received = await this.receive(body, MAX_PUT_BYTES);
    const part = { partNumber, etag: quoted(received.md5.toString('hex')), sizeBytes: received.sizeBytes };
    await this.keepPart(bucket, uploadId, partNumber, received.path, part);
    return part;
  }

  async copyPart(
    bucket: string,
    key: string,
    uploadId: string,
    partNumber: number,
    source: { bucket: string; metadata: ObjectMetadata; range?: { first: number; last: number } },
  ) {
    await this.upload(bucket, key, uploadId);
    const range = source.range ?? { first: 0, last: source.metadata.sizeBytes - 1 };
    const copied = await this.copyBytes(source.bucket, source.metadata, range);
    const part = { partNumber, etag: quoted(copied.md5!.toString('hex')), sizeBytes: copied.sizeBytes };
    await this.keepPart(bucket, uploadId, partNumber, copied.path, part);
    return part;
  }

  /** Joins the named parts, in order, into the object; the upload is gone afterwards. */
  async completeUpload(
    bucket: string,
    key: string,
    uploadId: string,
    parts: { partNumber: number; etag: string }[],
  ): Promise<ObjectMetadata> {
    const record = await this.upload(bucket, key, uploadId);
    const folder = this.uploadDir(bucket, uploadId);
    if (parts.length === 0) {
      throw new S3Error(400, 'MalformedXML', 'The XML you provided was not well-formed or did not validate.');
    }
    const stored: StoredPart[] = [];
    for (const [index, part] of parts.entries()) {
      if (index > 0 && part.partNumber <= parts[index - 1]!.partNumber) {
        throw new S3Error(400, 'InvalidPartOrder', 'The list of parts was not in ascending order.');
      }
      const kept = await readFile(join(folder, `part-${part.partNumber}.json`), 'utf8').then(
        (text) => JSON.parse(text) as StoredPart,
        () => undefined,
      );
      if (!kept || kept.etag.replace(/"/g, '') !== part.etag.replace(/"/g, '')) {
        throw new S3Error(
          400,
          'InvalidPart',
          "One or more of the specified parts could not be found. The part may not have been uploaded, or the specified entity tag may not match the part's entity tag.",
        );
      }
      if (index < parts.length - 1 && kept.sizeBytes < MIN_PART_BYTES) {
        throw new S3Error(
          400,
          'EntityTooSmall',
          'Your proposed upload is smaller than the minimum allowed object size.',
        );
      }
      stored.push(kept);
    }
    const path = this.tempFile();
    const partsMd5 = createHash('md5');
    for (const part of stored) partsMd5.update(Buffer.from(part.etag.replace(/"/g, ''), 'hex'));
    try {
      await pipeline(async function* () {
        for (const part of stored) yield* createReadStream(join(folder, `part-${part.partNumber}.bin`));
      }, createWriteStream(path));
    } catch (error) {
      await rm(path, { force: true });
      throw error;
    }
    const metadata = await this.commit(bucket, path, {
      key,
      sizeBytes: stored.reduce((total, part) => total + part.sizeBytes, 0),
      etag: quoted(`${partsMd5.digest('hex')}-${stored.length}`),
      lastModified: new Date().toISOString(),
      contentType: record.contentType,
      contentDisposition: record.contentDisposition,
      userMetadata: record.userMetadata,
    });
    await rm(folder, { recursive: true, force: true });
    return metadata;
  }

  async abortUpload(bucket: string, key: string, uploadId: string): Promise<void> {
    await this.upload(bucket, key, uploadId);
    await rm(this.uploadDir(bucket, uploadId), { recursive: true, force: true });
  }
}
