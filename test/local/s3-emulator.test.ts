import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import {
  AbortMultipartUploadCommand,
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateBucketCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
  UploadPartCommand,
  UploadPartCopyCommand,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import fc from 'fast-check';
import { startS3Server, type S3Server } from '../../local/emulators/s3/s3-server';
import { eventually } from '../integration/support/eventually';

const CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };
const BUCKET = 'media';
const MiB = 1024 * 1024;

let dataDir: string;
let server: S3Server;

/** As the handlers configure theirs (lambdas/platform/clients/s3.ts), plus the local endpoint. */
const client = (config: Partial<S3ClientConfig> = {}) =>
  new S3Client({
    region: 'us-east-1',
    credentials: CREDENTIALS,
    endpoint: server.endpoint,
    forcePathStyle: true,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
    ...config,
  });

async function failureOf(promise: Promise<unknown>): Promise<{ name: string; status?: number }> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof S3ServiceException) return { name: error.name, status: error.$metadata.httpStatusCode };
    throw error;
  }
  throw new Error('expected the call to fail');
}

const errorCode = async (response: Response) => /<Code>([^<]+)<\/Code>/.exec(await response.text())?.[1];

const presignUpload = (Key: string, body: Buffer, options: { expiresIn?: number; signingDate?: Date } = {}) =>
  getSignedUrl(
    client(),
    new PutObjectCommand({ Bucket: BUCKET, Key, ContentType: 'video/mp4', ContentLength: body.length }),
    { expiresIn: 60, signableHeaders: new Set(['content-type', 'content-length']), ...options },
  );

const put = (url: string, body: Buffer, contentType = 'video/mp4') =>
  fetch(url, { method: 'PUT', headers: { 'Content-Type': contentType }, body });

async function bytesOf(Key: string, Range?: string): Promise<Buffer> {
  const { Body } = await client().send(new GetObjectCommand({ Bucket: BUCKET, Key, Range }));
  return Buffer.from(await Body!.transformToByteArray());
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 's3-emulator-test-'));
  server = await startS3Server({ dataDir, credentials: CREDENTIALS });
  await client().send(new CreateBucketCommand({ Bucket: BUCKET }));
});
afterAll(async () => {
  await server.stop();
  await rm(dataDir, { recursive: true, force: true });
});

describe('presigned URLs', () => {
  it('take a PUT of the signed type and size, and serve the bytes back with the headers the GET URL asks for', async () => {
    const body = Buffer.from([0, 1, 2, 250, 251, 252]);
    expect((await put(await presignUpload('incoming/a.bin', body), body)).status).toBe(200);

    const url = await getSignedUrl(
      client(),
      new GetObjectCommand({
        Bucket: BUCKET,
        Key: 'incoming/a.bin',
        ResponseContentDisposition: 'attachment; filename="clip.mp4"',
        ResponseContentType: 'application/octet-stream',
      }),
      { expiresIn: 60 },
    );
    const download = await fetch(url);
    expect(download.status).toBe(200);
    expect(download.headers.get('content-disposition')).toBe('attachment; filename="clip.mp4"');
    expect(download.headers.get('content-type')).toBe('application/octet-stream');
    expect(Buffer.from(await download.arrayBuffer())).toEqual(body);
    const plain = await fetch(
      await getSignedUrl(client(), new GetObjectCommand({ Bucket: BUCKET, Key: 'incoming/a.bin' })),
    );
    expect(plain.headers.get('content-type')).toBe('video/mp4');
  });

  it('refuse a URL whose key, expiry or signature was altered, and a body of another size, another type or none, storing nothing', async () => {
    const body = Buffer.from('twelve bytes');
    const url = await presignUpload('incoming/signed.mp4', body);
    const refusals = [
      await put(url.replace('signed.mp4', 'other.mp4'), body),
      await put(url.replace(/X-Amz-Expires=\d+/, 'X-Amz-Expires=600'), body),
      await put(
        url.replace(/X-Amz-Signature=([0-9a-f])/, (_, first: string) => `X-Amz-Signature=${first === '0' ? '1' : '0'}`),
        body,
      ),
      await put(url, Buffer.from('thirteen byte')),
      await put(url, body, 'image/png'),
      // fetch sends no Content-Type of its own for a Buffer, nor does curl's --upload-file.
      await fetch(url, { method: 'PUT', body }),
    ];
    expect(refusals.map((response) => response.status)).toEqual(Array(6).fill(403));
    expect(await Promise.all(refusals.map(errorCode))).toEqual(Array(6).fill('SignatureDoesNotMatch'));
    for (const Key of ['incoming/signed.mp4', 'incoming/other.mp4']) {
      expect(await failureOf(client().send(new HeadObjectCommand({ Bucket: BUCKET, Key })))).toEqual({
        name: 'NotFound',
        status: 404,
      });
    }
  });

  it('refuse an expired URL, one signed with other credentials, and a request with no signature', async () => {
    const body = Buffer.from('late');
    const expired = await presignUpload('incoming/late.mp4', body, {
      expiresIn: 60,
      signingDate: new Date(Date.now() - 61_000),
    });
    const response = await put(expired, body);
    expect(response.status).toBe(403);
    expect(await response.text()).toContain('Request has expired');

    const foreign = await getSignedUrl(
      client({ credentials: { accessKeyId: 'someone-else', secretAccessKey: 'local' } }),
      new GetObjectCommand({ Bucket: BUCKET, Key: 'incoming/a.bin' }),
    );
    const foreignResponse = await fetch(foreign);
    expect([foreignResponse.status, await errorCode(foreignResponse)]).toEqual([403, 'InvalidAccessKeyId']);

    const unsigned = await fetch(`${server.endpoint}/${BUCKET}/incoming/a.bin`);
    expect([unsigned.status, await errorCode(unsigned)]).toEqual([403, 'AccessDenied']);
  });

  // The v3 SDK signs the CRC32 of an empty body into a presigned PUT unless checksums are WHEN_REQUIRED.
  it('hold an upload to a checksum the URL carries, as S3 does', async () => {
    const body = Buffer.from('real bytes');
    const url = await getSignedUrl(
      client({ requestChecksumCalculation: 'WHEN_SUPPORTED' }),
      new PutObjectCommand({ Bucket: BUCKET, Key: 'incoming/checksummed.mp4' }),
    );
    const response = await fetch(url, { method: 'PUT', body });
    expect([response.status, await errorCode(response)]).toEqual([400, 'BadDigest']);
  });
});

describe('connections', () => {
  it('are kept idle for 60 s, so a pooling client always closes them first', async () => {
    const response = await fetch(`${server.endpoint}/${BUCKET}/no-such-object`);
    expect(response.headers.get('keep-alive')).toBe('timeout=60');
  });
});

describe('objects', () => {
  it("take the SDK's streamed body in aws-chunked encoding with its CRC32 trailer", async () => {
    const chunks = [Buffer.alloc(70_000, 1), Buffer.alloc(5, 2)];
    await client({ requestChecksumCalculation: 'WHEN_SUPPORTED' }).send(
      new PutObjectCommand({ Bucket: BUCKET, Key: 'streamed.bin', Body: Readable.from(chunks), ContentLength: 70_005 }),
    );
    expect(await bytesOf('streamed.bin')).toEqual(Buffer.concat(chunks));
  });

  it('serve byte ranges, refuse a range past the end with 416, and a read of another version with 412', async () => {
    await client().send(new PutObjectCommand({ Bucket: BUCKET, Key: 'ranged.txt', Body: '0123456789' }));
    expect((await bytesOf('ranged.txt', 'bytes=2-4')).toString()).toBe('234');
    expect((await bytesOf('ranged.txt', 'bytes=7-')).toString()).toBe('789');
    expect((await bytesOf('ranged.txt', 'bytes=-2')).toString()).toBe('89');
    expect((await bytesOf('ranged.txt', 'bytes=8-100')).toString()).toBe('89');
    expect(await failureOf(bytesOf('ranged.txt', 'bytes=10-'))).toEqual({ name: 'InvalidRange', status: 416 });
    expect(
      await failureOf(client().send(new GetObjectCommand({ Bucket: BUCKET, Key: 'ranged.txt', IfMatch: '"0"' }))),
    ).toEqual({ name: 'PreconditionFailed', status: 412 });
    expect(await failureOf(bytesOf('never-written'))).toEqual({ name: 'NoSuchKey', status: 404 });
  });

  it('copy an object with replaced attributes, only from the version named by CopySourceIfMatch', async () => {
    const { ETag } = await client().send(
      new PutObjectCommand({ Bucket: BUCKET, Key: 'original', Body: 'copied', ContentType: 'text/plain' }),
    );
    await client().send(
      new CopyObjectCommand({
        Bucket: BUCKET,
        Key: 'copy',
        CopySource: `${BUCKET}/original`,
        CopySourceIfMatch: ETag,
        ContentType: 'video/mp4',
        MetadataDirective: 'REPLACE',
      }),
    );
    const copy = await client().send(new HeadObjectCommand({ Bucket: BUCKET, Key: 'copy' }));
    expect([copy.ContentType, copy.ContentLength, copy.ETag]).toEqual(['video/mp4', 6, ETag]);
    expect(
      await failureOf(
        client().send(
          new CopyObjectCommand({
            Bucket: BUCKET,
            Key: 'copy2',
            CopySource: `${BUCKET}/original`,
            CopySourceIfMatch: '"0"',
          }),
        ),
      ),
    ).toEqual({ name: 'PreconditionFailed', status: 412 });
  });

  it('keep nothing of a PUT cut short, and nothing half-written in its place', async () => {
    await client().send(new PutObjectCommand({ Bucket: BUCKET, Key: 'cut.bin', Body: 'before' }));
    const url = new URL(
      await getSignedUrl(client(), new PutObjectCommand({ Bucket: BUCKET, Key: 'cut.bin', ContentLength: 4 * MiB }), {
        signableHeaders: new Set(['content-length']),
      }),
    );
    const temporaryFiles = () => readdir(join(dataDir, 'tmp'));
    const blobs = join(dataDir, 'buckets', BUCKET, 'blobs');
    const blobsBefore = await readdir(blobs);
    const request = httpRequest(url, { method: 'PUT', headers: { 'Content-Length': 4 * MiB } });
    request.on('error', () => undefined);
    request.write(Buffer.alloc(MiB));
    // The server streams a body to a temporary file; only a whole one is moved among the blobs.
    expect(await eventually(temporaryFiles, (files) => files.length > 0)).toHaveLength(1);
    request.destroy();
    // Gone from tmp and not among the blobs: removed, so nothing is left that could become the object.
    expect(await eventually(temporaryFiles, (files) => files.length === 0)).toEqual([]);
    expect(await readdir(blobs)).toEqual(blobsBefore);
    expect((await bytesOf('cut.bin')).toString()).toBe('before');
  });

  it('keep objects of keys of any characters, listed and read back as written', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ unit: 'grapheme', minLength: 1, maxLength: 40 }).filter((key) => !key.startsWith('/')),
        fc.uint8Array({ maxLength: 64 }),
        async (suffix, bytes) => {
          const Key = `any/${suffix}`;
          await client().send(new PutObjectCommand({ Bucket: BUCKET, Key, Body: bytes }));
          expect(await bytesOf(Key)).toEqual(Buffer.from(bytes));
          const listed = await client().send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: Key, MaxKeys: 1 }));
          expect(listed.Contents?.[0]?.Key).toBe(Key);
          await client().send(new DeleteObjectCommand({ Bucket: BUCKET, Key }));
        },
      ),
      { numRuns: 40 },
    );
  });
});

describe('multipart uploads', () => {
  it('join uploaded and copied parts in order, with the ETag of a multipart object', async () => {
    await client().send(new PutObjectCommand({ Bucket: BUCKET, Key: 'source', Body: 'abcdefghij' }));
    const target = { Bucket: BUCKET, Key: 'joined' };
    const { UploadId } = await client().send(new CreateMultipartUploadCommand({ ...target, ContentType: 'video/mp4' }));
    const first = await client().send(
      new UploadPartCommand({ ...target, UploadId, PartNumber: 1, Body: Buffer.alloc(5 * MiB, 7) }),
    );
    const second = await client().send(
      new UploadPartCopyCommand({
        ...target,
        UploadId,
        PartNumber: 2,
        CopySource: `${BUCKET}/source`,
        CopySourceRange: 'bytes=2-4',
      }),
    );
    const { ETag } = await client().send(
      new CompleteMultipartUploadCommand({
        ...target,
        UploadId,
        MultipartUpload: {
          Parts: [
            { PartNumber: 1, ETag: first.ETag },
            { PartNumber: 2, ETag: second.CopyPartResult?.ETag },
          ],
        },
      }),
    );
    expect(ETag).toMatch(/^"[0-9a-f]{32}-2"$/);
    const joined = await bytesOf('joined');
    expect(joined.length).toBe(5 * MiB + 3);
    expect(joined.subarray(5 * MiB).toString()).toBe('cde');
    expect((await client().send(new HeadObjectCommand(target))).ContentType).toBe('video/mp4');
  });

  it('refuse a part under 5 MiB before the last, and forget an aborted upload', async () => {
    const target = { Bucket: BUCKET, Key: 'small-parts' };
    const { UploadId } = await client().send(new CreateMultipartUploadCommand(target));
    const parts: { PartNumber: number; ETag?: string }[] = [];
    for (const PartNumber of [1, 2]) {
      const { ETag } = await client().send(new UploadPartCommand({ ...target, UploadId, PartNumber, Body: 'tiny' }));
      parts.push({ PartNumber, ETag });
    }
    const complete = () =>
      client().send(new CompleteMultipartUploadCommand({ ...target, UploadId, MultipartUpload: { Parts: parts } }));
    expect(await failureOf(complete())).toEqual({ name: 'EntityTooSmall', status: 400 });
    await client().send(new AbortMultipartUploadCommand({ ...target, UploadId }));
    expect(await failureOf(complete())).toEqual({ name: 'NoSuchUpload', status: 404 });
  });
});

describe('listing', () => {
  // How a confirmation tells a missing upload from a refused HeadObject (lambdas/domain/assets/media.ts).
  it('lists a key first among the keys it is a prefix of, a page at a time, with common prefixes', async () => {
    for (const Key of ['incoming/7/asset_b', 'incoming/7/asset_b0', 'incoming/7/nested/c', 'incoming/7/nested/d']) {
      await client().send(new PutObjectCommand({ Bucket: BUCKET, Key, Body: 'bytes' }));
    }
    const list = (input: { Prefix: string; MaxKeys?: number; ContinuationToken?: string; Delimiter?: string }) =>
      client().send(new ListObjectsV2Command({ Bucket: BUCKET, ...input }));
    expect((await list({ Prefix: 'incoming/7/asset_b', MaxKeys: 1 })).Contents?.map(({ Key }) => Key)).toEqual([
      'incoming/7/asset_b',
    ]);
    expect((await list({ Prefix: 'incoming/7/asset_a', MaxKeys: 1 })).Contents).toBeUndefined();

    const firstPage = await list({ Prefix: 'incoming/7/', MaxKeys: 3 });
    const secondPage = await list({
      Prefix: 'incoming/7/',
      MaxKeys: 3,
      ContinuationToken: firstPage.NextContinuationToken,
    });
    expect([firstPage.IsTruncated, secondPage.IsTruncated]).toEqual([true, false]);
    expect([...firstPage.Contents!, ...secondPage.Contents!].map(({ Key }) => Key)).toEqual([
      'incoming/7/asset_b',
      'incoming/7/asset_b0',
      'incoming/7/nested/c',
      'incoming/7/nested/d',
    ]);
    const folders = await list({ Prefix: 'incoming/7/', Delimiter: '/' });
    expect(folders.CommonPrefixes?.map(({ Prefix }) => Prefix)).toEqual(['incoming/7/nested/']);
    expect(folders.Contents?.map(({ Key }) => Key)).toEqual(['incoming/7/asset_b', 'incoming/7/asset_b0']);
  });
});

describe('restarts', () => {
  it('keeps objects in the data dir across a restart', async () => {
    await client().send(new PutObjectCommand({ Bucket: BUCKET, Key: 'kept.txt', Body: 'still here' }));
    await server.stop();
    server = await startS3Server({ dataDir, credentials: CREDENTIALS });
    expect((await bytesOf('kept.txt')).toString()).toBe('still here');
  });
});
