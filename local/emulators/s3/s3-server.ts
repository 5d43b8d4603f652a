import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pipeline } from 'node:stream/promises';
import { crc32 } from 'node:zlib';
import { KEEP_ALIVE_TIMEOUT_MS } from '../../keep-alive';
import { AwsChunkedDecoder } from './aws-chunked';
import { noSuchKey, preconditionFailed, S3Error } from './errors';
import {
  MAX_PART_NUMBER,
  MAX_PUT_BYTES,
  ObjectStore,
  tap,
  type IncomingBody,
  type ObjectAttributes,
  type ObjectMetadata,
} from './object-store';
import { queryPairs, strictEncode, verifySignature, type Credentials } from './signature';

/**
 * An S3 endpoint on loopback for the local stack: path-style requests, checked against SigV4 with
 * the local credentials, bodies streamed to disk (object-store.ts). It serves the calls the
 * product, its tests and the AWS CLI make: buckets (create, head, list), objects (put, get with
 * ranges and conditions, head, copy, delete, list v2) and multipart uploads (create, upload part,
 * upload part copy, complete, abort). Anything else is answered 501 NotImplemented.
 */

export interface S3ServerOptions {
  /** Where buckets and objects are kept; what is there survives a restart. */
  dataDir: string;
  credentials: Credentials;
  /** Defaults to a free port. */
  port?: number;
}

export interface S3Server {
  /** `http://127.0.0.1:<port>`; clients need `forcePathStyle: true`. */
  endpoint: string;
  stop(): Promise<void>;
}

const XML_HEADER = '<?xml version="1.0" encoding="UTF-8"?>\n';
const NAMESPACE = 'http://s3.amazonaws.com/doc/2006-03-01/';
/** A refused request's body is read to its end below this size, so the client gets the answer on a kept connection. */
const DRAINED_REFUSAL_BYTES = 16 * 1024 * 1024;
/** CompleteMultipartUpload's list of at most 10,000 parts fits well within this. */
const MAX_XML_BODY_BYTES = 2 * 1024 * 1024;
/** Response headers a presigned GET may set through its query, as S3 allows. */
const RESPONSE_OVERRIDES = {
  'response-content-type': 'Content-Type',
  'response-content-disposition': 'Content-Disposition',
  'response-content-language': 'Content-Language',
  'response-content-encoding': 'Content-Encoding',
  'response-cache-control': 'Cache-Control',
  'response-expires': 'Expires',
} as const;

const escapeXml = (value: string) =>
  value.replace(
    /[&<>"']/g,
    (char) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[char]!,
  );
const element = (name: string, value: string | number | boolean) => `<${name}>${escapeXml(String(value))}</${name}>`;
const unescapeXml = (value: string) =>
  value.replace(
    /&(amp|lt|gt|quot|apos);/g,
    (_, name: string) => ({ amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" })[name]!,
  );
const httpDate = (iso: string) => new Date(iso).toUTCString();

interface ParsedRequest {
  method: string;
  bucket: string;
  key: string;
  query: Map<string, string>;
  requestId: string;
}

function header(request: IncomingMessage, name: string): string | undefined {
  const value = request.headers[name];
  return Array.isArray(value) ? value.join(',') : value;
}

function parseTarget(request: IncomingMessage) {
  const url = request.url ?? '/';
  const questionMark = url.indexOf('?');
  const rawPath = questionMark === -1 ? url : url.slice(0, questionMark);
  const rawQuery = questionMark === -1 ? '' : url.slice(questionMark + 1);
  return { rawPath, rawQuery };
}

function splitPath(rawPath: string): { bucket: string; key: string } {
  const [, bucket = '', ...keySegments] = rawPath.split('/').map((segment) => {
    try {
      return decodeURIComponent(segment);
    } catch {
      throw new S3Error(400, 'InvalidURI', 'Could not parse the specified URI.');
    }
  });
  return { bucket, key: keySegments.join('/') };
}

function attributesFrom(request: IncomingMessage): ObjectAttributes {
  const userMetadata: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (name.startsWith('x-amz-meta-') && typeof value === 'string') userMetadata[name.slice(11)] = value;
  }
  return {
    contentType: header(request, 'content-type') ?? 'binary/octet-stream',
    contentDisposition: header(request, 'content-disposition'),
    userMetadata,
  };
}

/** An inclusive byte range of `bytes=a-b`, `bytes=a-` or `bytes=-n`; undefined for a header S3 ignores. */
function byteRange(value: string | undefined, sizeBytes: number): { first: number; last: number } | undefined {
  const match = value === undefined ? null : /^bytes=(\d*)-(\d*)$/.exec(value.trim());
  if (!match || (match[1] === '' && match[2] === '')) return undefined;
  const unsatisfiable = () =>
    new S3Error(416, 'InvalidRange', 'The requested range is not satisfiable', {
      'Content-Range': `bytes */${sizeBytes}`,
    });
  if (match[1] === '') {
    const suffix = Number(match[2]);
    if (suffix === 0 || sizeBytes === 0) throw unsatisfiable();
    return { first: Math.max(0, sizeBytes - suffix), last: sizeBytes - 1 };
  }
  const first = Number(match[1]);
  const last = match[2] === '' ? sizeBytes - 1 : Number(match[2]);
  if (match[2] !== '' && last < first) return undefined;
  if (first >= sizeBytes) throw unsatisfiable();
  return { first, last: Math.min(last, sizeBytes - 1) };
}

function checkConditions(request: IncomingMessage, metadata: ObjectMetadata): 'not-modified' | undefined {
  const unquoted = (etag: string) => etag.trim().replace(/^W\//, '').replace(/"/g, '');
  const ifMatch = header(request, 'if-match');
  if (
    ifMatch !== undefined &&
    !ifMatch.split(',').some((etag) => ['*', unquoted(metadata.etag)].includes(unquoted(etag)))
  ) {
    throw preconditionFailed();
  }
  const ifNoneMatch = header(request, 'if-none-match');
  if (ifNoneMatch?.split(',').some((etag) => ['*', unquoted(metadata.etag)].includes(unquoted(etag)))) {
    return 'not-modified';
  }
  return undefined;
}

function objectHeaders(metadata: ObjectMetadata): Record<string, string | number> {
  return {
    'Content-Type': metadata.contentType,
    ...(metadata.contentDisposition ? { 'Content-Disposition': metadata.contentDisposition } : {}),
    ETag: metadata.etag,
    'Last-Modified': httpDate(metadata.lastModified),
    'Accept-Ranges': 'bytes',
    ...Object.fromEntries(Object.entries(metadata.userMetadata).map(([name, value]) => [`x-amz-meta-${name}`, value])),
  };
}

/**
 * The request's body as the object's bytes: aws-chunked decoded, and checked once read against what
 * the request declared (its length, signed SHA-256, Content-MD5 and CRC32 checksum), as S3 checks it.
 */
function incomingBody(request: IncomingMessage, query: Map<string, string>, contentSha256: string): IncomingBody {
  const chunked =
    contentSha256.startsWith('STREAMING-') || (header(request, 'content-encoding') ?? '').includes('aws-chunked');
  const declared = header(request, chunked ? 'x-amz-decoded-content-length' : 'content-length');
  if (declared === undefined || !/^\d+$/.test(declared)) {
    throw new S3Error(411, 'MissingContentLength', 'You must provide the Content-Length HTTP header.');
  }
  const declaredBytes = Number(declared);
  if (declaredBytes > MAX_PUT_BYTES) {
    throw new S3Error(400, 'EntityTooLarge', 'Your proposed upload exceeds the maximum allowed size');
  }
  const decoder = chunked ? new AwsChunkedDecoder() : undefined;
  // Digests cost CPU on every byte: each is computed only when the request declares one to check.
  const signedSha256 = /^[0-9a-f]{64}$/.test(contentSha256) ? createHash('sha256') : undefined;
  const crc32Declared =
    header(request, 'x-amz-checksum-crc32') !== undefined ||
    query.has('x-amz-checksum-crc32') ||
    (header(request, 'x-amz-trailer') ?? '').toLowerCase().includes('x-amz-checksum-crc32');
  let crc = 0;
  const transforms = [
    ...(decoder ? [decoder] : []),
    ...(signedSha256 ? [tap((chunk) => signedSha256.update(chunk))] : []),
    ...(crc32Declared ? [tap((chunk) => (crc = crc32(chunk, crc)))] : []),
  ];
  return {
    source: request,
    transforms,
    verify({ md5, sizeBytes }) {
      if (sizeBytes !== declaredBytes) {
        throw new S3Error(
          400,
          'IncompleteBody',
          'You did not provide the number of bytes specified by the Content-Length HTTP header.',
        );
      }
      if (signedSha256 && signedSha256.digest('hex') !== contentSha256) {
        throw new S3Error(
          400,
          'XAmzContentSHA256Mismatch',
          "The provided 'x-amz-content-sha256' header does not match what was computed.",
        );
      }
      const contentMd5 = header(request, 'content-md5');
      if (contentMd5 !== undefined && md5.toString('base64') !== contentMd5) {
        throw new S3Error(400, 'BadDigest', 'The Content-MD5 you specified did not match what we received.');
      }
      // A presigned URL carries it in its query, where S3 takes it as if it were the header.
      const declaredCrc32 =
        header(request, 'x-amz-checksum-crc32') ??
        query.get('x-amz-checksum-crc32') ??
        decoder?.trailers['x-amz-checksum-crc32'];
      if (crc32Declared && declaredCrc32 !== undefined) {
        const computed = Buffer.alloc(4);
        computed.writeUInt32BE(crc >>> 0);
        if (computed.toString('base64') !== declaredCrc32) {
          throw new S3Error(400, 'BadDigest', 'The CRC32 you specified did not match the calculated checksum.');
        }
      }
    },
  };
}

/** The bucket and key of `x-amz-copy-source` (`bucket/key` or `/bucket/key`, URL-encoded). */
function copySource(request: IncomingMessage): { bucket: string; key: string } {
  const value = header(request, 'x-amz-copy-source') ?? '';
  const withoutVersion = value.split('?')[0]!;
  let decoded: string;
  try {
    decoded = decodeURIComponent(withoutVersion).replace(/^\//, '');
  } catch {
    throw new S3Error(400, 'InvalidArgument', 'Invalid copy source encoding');
  }
  const slash = decoded.indexOf('/');
  if (slash <= 0 || slash === decoded.length - 1) {
    throw new S3Error(
      400,
      'InvalidArgument',
      'Copy Source must mention the source bucket and key: sourcebucket/sourcekey',
    );
  }
  return { bucket: decoded.slice(0, slash), key: decoded.slice(slash + 1) };
}

async function readXmlBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_XML_BODY_BYTES) throw new S3Error(400, 'MaxMessageLengthExceeded', 'Your request was too big.');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function completedParts(xml: string): { partNumber: number; etag: string }[] {
  const parts = [...xml.matchAll(/<Part>([\s\S]*?)<\/Part>/g)].map(([, part]) => ({
    partNumber: Number(/<PartNumber>\s*(\d+)\s*<\/PartNumber>/.exec(part!)?.[1]),
    etag: unescapeXml(/<ETag>([\s\S]*?)<\/ETag>/.exec(part!)?.[1] ?? '').trim(),
  }));
  if (!/<CompleteMultipartUpload[\s>]/.test(xml) || parts.some((part) => !part.partNumber || !part.etag)) {
    throw new S3Error(400, 'MalformedXML', 'The XML you provided was not well-formed or did not validate.');
  }
  return parts;
}

function partNumberOf(query: Map<string, string>): number {
  const partNumber = Number(query.get('partNumber'));
  if (!Number.isInteger(partNumber) || partNumber < 1 || partNumber > MAX_PART_NUMBER) {
    throw new S3Error(
      400,
      'InvalidArgument',
      `Part number must be an integer between 1 and ${MAX_PART_NUMBER}, inclusive`,
    );
  }
  return partNumber;
}

export class S3Service {
  constructor(private readonly store: ObjectStore) {}

  async handle(request: IncomingMessage, response: ServerResponse, target: ParsedRequest, contentSha256: string) {
    const { method, bucket, key, query } = target;
    if (bucket === '') throw notImplemented();
    if (key === '') return this.bucketOperation(request, response, target);
    if (Buffer.byteLength(key) > 1024) throw new S3Error(400, 'KeyTooLongError', 'Your key is too long');
    const uploadId = query.get('uploadId');
    const supported = new Set(['uploadId', 'partNumber', 'uploads', 'x-id', ...Object.keys(RESPONSE_OVERRIDES)]);
    if ([...query.keys()].some((name) => !supported.has(name) && !name.toLowerCase().startsWith('x-amz-'))) {
      throw notImplemented();
    }
    switch (method) {
      case 'GET':
      case 'HEAD':
        return this.getObject(request, response, target);
      case 'PUT': {
        const copying = header(request, 'x-amz-copy-source') !== undefined;
        if (uploadId !== undefined) {
          const partNumber = partNumberOf(query);
          const part = copying
            ? await this.copyPart(request, bucket, key, uploadId, partNumber)
            : await this.store.putPart(bucket, key, uploadId, partNumber, incomingBody(request, query, contentSha256));
          if (copying) {
            return sendXml(
              response,
              200,
              'CopyPartResult',
              element('LastModified', new Date().toISOString()) + element('ETag', part.etag),
            );
          }
          response.writeHead(200, { ETag: part.etag, 'Content-Length': 0 }).end();
          return;
        }
        if (copying) return this.copyObject(request, response, bucket, key);
        const stored = await this.store.put(
          bucket,
          key,
          incomingBody(request, query, contentSha256),
          attributesFrom(request),
        );
        response.writeHead(200, { ETag: stored.etag, 'Content-Length': 0 }).end();
        return;
      }
      case 'POST': {
        if (query.has('uploads')) {
          const newUploadId = await this.store.createUpload(bucket, key, attributesFrom(request));
          return sendXml(
            response,
            200,
            'InitiateMultipartUploadResult',
            element('Bucket', bucket) + element('Key', key) + element('UploadId', newUploadId),
          );
        }
        if (uploadId === undefined) throw notImplemented();
        const parts = completedParts(await readXmlBody(request));
        const stored = await this.store.completeUpload(bucket, key, uploadId, parts);
        return sendXml(
          response,
          200,
          'CompleteMultipartUploadResult',
          element('Location', `/${bucket}/${key}`) +
            element('Bucket', bucket) +
            element('Key', key) +
            element('ETag', stored.etag),
        );
      }
      case 'DELETE':
        if (uploadId !== undefined) await this.store.abortUpload(bucket, key, uploadId);
        else await this.store.delete(bucket, key);
        response.writeHead(204).end();
        return;
      default:
        throw notImplemented();
    }
  }

  private async bucketOperation(
    request: IncomingMessage,
    response: ServerResponse,
    { method, bucket, query }: ParsedRequest,
  ) {
    if (method === 'PUT' && query.size === 0) {
      await readXmlBody(request);
      await this.store.createBucket(bucket);
      response.writeHead(200, { Location: `/${bucket}`, 'Content-Length': 0 }).end();
      return;
    }
    if (method === 'HEAD' && query.size === 0) {
      await this.store.requireBucket(bucket);
      response.writeHead(200, { 'x-amz-bucket-region': 'us-east-1' }).end();
      return;
    }
    if (method === 'GET' && query.get('list-type') === '2') return this.listObjects(response, bucket, query);
    throw notImplemented();
  }

  private async listObjects(response: ServerResponse, bucket: string, query: Map<string, string>) {
    const prefix = query.get('prefix') ?? '';
    const delimiter = query.get('delimiter') ?? '';
    const maxKeys = Math.min(Number(query.get('max-keys') ?? 1000), 1000);
    if (!Number.isInteger(maxKeys) || maxKeys < 0) {
      throw new S3Error(400, 'InvalidArgument', 'Provided max-keys not an integer or within integer range');
    }
    const urlEncoded = query.get('encoding-type') === 'url';
    const token = query.get('continuation-token');
    const after =
      token !== undefined ? Buffer.from(token, 'base64url').toString('utf8') : (query.get('start-after') ?? '');
    const entries: ({ kind: 'object'; object: ObjectMetadata } | { kind: 'prefix'; prefix: string })[] = [];
    const seenPrefixes = new Set<string>();
    for (const object of await this.store.list(bucket, prefix)) {
      if (after !== '' && Buffer.compare(Buffer.from(object.key), Buffer.from(after)) <= 0) continue;
      const cut = delimiter === '' ? -1 : object.key.indexOf(delimiter, prefix.length);
      if (cut === -1) {
        entries.push({ kind: 'object', object });
        continue;
      }
      const commonPrefix = object.key.slice(0, cut + delimiter.length);
      if (seenPrefixes.has(commonPrefix)) continue;
      seenPrefixes.add(commonPrefix);
      entries.push({ kind: 'prefix', prefix: commonPrefix });
    }
    const page = entries.slice(0, maxKeys);
    const truncated = entries.length > maxKeys;
    const shown = (value: string) => (urlEncoded ? strictEncode(value).replace(/%2F/g, '/') : value);
    const last = page.at(-1);
    const lastKey = last === undefined ? '' : last.kind === 'object' ? last.object.key : last.prefix;
    const body =
      element('Name', bucket) +
      element('Prefix', shown(prefix)) +
      (delimiter ? element('Delimiter', shown(delimiter)) : '') +
      element('KeyCount', page.length) +
      element('MaxKeys', maxKeys) +
      element('IsTruncated', truncated) +
      (token !== undefined ? element('ContinuationToken', token) : '') +
      (truncated ? element('NextContinuationToken', Buffer.from(lastKey).toString('base64url')) : '') +
      (urlEncoded ? element('EncodingType', 'url') : '') +
      page
        .map((entry) =>
          entry.kind === 'prefix'
            ? `<CommonPrefixes>${element('Prefix', shown(entry.prefix))}</CommonPrefixes>`
            : `<Contents>${element('Key', shown(entry.object.key))}${element('LastModified', entry.object.lastModified)}${element('ETag', entry.object.etag)}${element('Size', entry.object.sizeBytes)}${element('StorageClass', 'STANDARD')}</Contents>`,
        )
        .join('');
    sendXml(response, 200, 'ListBucketResult', body);
  }

  private async getObject(
    request: IncomingMessage,
    response: ServerResponse,
    { method, bucket, key, query }: ParsedRequest,
  ) {
    const overrides = Object.fromEntries(
      Object.entries(RESPONSE_OVERRIDES)
        .filter(([parameter]) => query.has(parameter))
        .map(([parameter, name]) => [name, query.get(parameter)!]),
    );
    // Conditions and range are judged against the version whose bytes are served.
    let notModified = false;
    let range: { first: number; last: number } | undefined;
    const { metadata, stream } = await this.store.read(bucket, key, (version) => {
      notModified = checkConditions(request, version) === 'not-modified';
      if (notModified) return 'none';
      range = byteRange(header(request, 'range'), version.sizeBytes);
      if (method === 'HEAD') return 'none';
      return range ?? { first: 0, last: version.sizeBytes - 1 };
    });
    if (notModified) {
      response.writeHead(304, { ETag: metadata.etag, 'Last-Modified': httpDate(metadata.lastModified) }).end();
      return;
    }
    response.writeHead(range ? 206 : 200, {
      ...objectHeaders(metadata),
      ...overrides,
      'Content-Length': range ? range.last - range.first + 1 : metadata.sizeBytes,
      ...(range ? { 'Content-Range': `bytes ${range.first}-${range.last}/${metadata.sizeBytes}` } : {}),
    });
    if (stream) await pipeline(stream, response);
    else response.end();
  }

  private async sourceOf(request: IncomingMessage) {
    const source = copySource(request);
    await this.store.requireBucket(source.bucket);
    const metadata = await this.store.head(source.bucket, source.key);
    if (!metadata) throw noSuchKey();
    const ifMatch = header(request, 'x-amz-copy-source-if-match');
    if (ifMatch !== undefined && ifMatch.replace(/"/g, '') !== metadata.etag.replace(/"/g, ''))
      throw preconditionFailed();
    return { bucket: source.bucket, metadata };
  }

  private async copyObject(request: IncomingMessage, response: ServerResponse, bucket: string, key: string) {
    const source = await this.sourceOf(request);
    if (source.metadata.sizeBytes > MAX_PUT_BYTES) {
      throw new S3Error(
        400,
        'InvalidRequest',
        'The specified copy source is larger than the maximum allowable size for a copy source: 5368709120',
      );
    }
    const replace = header(request, 'x-amz-metadata-directive') === 'REPLACE';
    const attributes = replace ? attributesFrom(request) : source.metadata;
    const stored = await this.store.copy(bucket, source.metadata, source.bucket, key, {
      contentType: attributes.contentType,
      contentDisposition: attributes.contentDisposition,
      userMetadata: attributes.userMetadata,
    });
    sendXml(
      response,
      200,
      'CopyObjectResult',
      element('LastModified', stored.lastModified) + element('ETag', stored.etag),
    );
  }

  private async copyPart(request: IncomingMessage, bucket: string, key: string, uploadId: string, partNumber: number) {
    const source = await this.sourceOf(request);
    const rangeHeader = header(request, 'x-amz-copy-source-range');
    let range: { first: number; last: number } | undefined;
    if (rangeHeader !== undefined) {
      const match = /^bytes=(\d+)-(\d+)$/.exec(rangeHeader.trim());
      if (!match || Number(match[2]) < Number(match[1]) || Number(match[2]) >= source.metadata.sizeBytes) {
        throw new S3Error(
          400,
          'InvalidArgument',
          'The x-amz-copy-source-range value must be of the form bytes=first-last where first and last are the zero-based offsets of the first and last bytes to copy',
        );
      }
      range = { first: Number(match[1]), last: Number(match[2]) };
    }
    return this.store.copyPart(bucket, key, uploadId, partNumber, { ...source, range });
  }
}

const notImplemented = () =>
  new S3Error(501, 'NotImplemented', 'A header or query you provided implies functionality that is not implemented.');

function sendXml(response: ServerResponse, status: number, root: string, body: string) {
  const xml = `${XML_HEADER}<${root} xmlns="${NAMESPACE}">${body}</${root}>`;
  response.writeHead(status, { 'Content-Type': 'application/xml', 'Content-Length': Buffer.byteLength(xml) });
  response.end(xml);
}

function sendError(request: IncomingMessage, response: ServerResponse, error: S3Error, requestId: string) {
  const resource = parseTarget(request).rawPath;
  const headers: Record<string, string | number> = { 'x-amz-request-id': requestId, ...error.headers };
  if (request.method === 'HEAD') {
    response.writeHead(error.status, headers).end();
    return;
  }
  const xml = `${XML_HEADER}<Error>${element('Code', error.code)}${element('Message', error.message)}${element('Resource', resource)}${element('RequestId', requestId)}</Error>`;
  response.writeHead(error.status, {
    ...headers,
    'Content-Type': 'application/xml',
    'Content-Length': Buffer.byteLength(xml),
  });
  response.end(xml);
}

/**
 * Answers a request that failed. A body the request still holds is read to its end first when it
 * is small, so the client reads the answer on a kept connection; a large one is not waited for:
 * the answer goes out and the connection closes, as S3 does.
 */
function refuse(request: IncomingMessage, response: ServerResponse, error: S3Error, requestId: string) {
  if (request.complete || request.readableEnded) return sendError(request, response, error, requestId);
  const length = Number(header(request, 'content-length') ?? 0);
  if (length <= DRAINED_REFUSAL_BYTES) {
    request.on('end', () => sendError(request, response, error, requestId));
    request.on('error', () => response.destroy());
    request.resume();
    return;
  }
  response.setHeader('Connection', 'close');
  sendError(request, response, error, requestId);
  response.on('finish', () => request.destroy());
}

export async function startS3Server({ dataDir, credentials, port = 0 }: S3ServerOptions): Promise<S3Server> {
  const store = new ObjectStore(dataDir);
  await store.open();
  const service = new S3Service(store);
  const onRequest = async (request: IncomingMessage, response: ServerResponse) => {
    const requestId = randomBytes(8).toString('hex').toUpperCase();
    response.setHeader('x-amz-request-id', requestId);
    try {
      const { rawPath, rawQuery } = parseTarget(request);
      const { contentSha256 } = verifySignature(
        { method: request.method ?? 'GET', rawPath, rawQuery, headers: request.headers },
        credentials,
      );
      const { bucket, key } = splitPath(rawPath);
      const query = new Map(queryPairs(rawQuery));
      await service.handle(
        request,
        response,
        { method: request.method ?? 'GET', bucket, key, query, requestId },
        contentSha256,
      );
    } catch (error) {
      if (response.headersSent) {
        response.destroy();
        return;
      }
      if (error instanceof S3Error) {
        refuse(request, response, error, requestId);
        return;
      }
      // A client that went away mid-request (its upload cut short) is answered by nobody: nothing was kept.
      if (request.errored) {
        response.destroy();
        return;
      }
      console.error('[s3] request failed:', error);
      refuse(
        request,
        response,
        new S3Error(500, 'InternalError', 'We encountered an internal error. Please try again.'),
        requestId,
      );
    }
  };
  const server: Server = createServer(
    { requestTimeout: 0, keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS },
    (request, response) => {
      void onRequest(request, response);
    },
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const { port: boundPort } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${boundPort}`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
