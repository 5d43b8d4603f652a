import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import { S3Error } from './errors';

/**
 * AWS Signature Version 4 as S3 checks it, for requests signed in the Authorization header (the
 * SDK's calls) and in the query string (presigned URLs). Only the credentials given to the
 * emulator are accepted, so a tampered, expired or foreign upload URL is refused as in AWS.
 */

export interface Credentials {
  accessKeyId: string;
  secretAccessKey: string;
}

/** What a verified request said of its body. */
export interface SignedPayload {
  /**
   * The hex SHA-256 the body must have, `UNSIGNED-PAYLOAD`, or one of the `STREAMING-…` values of
   * a body sent in aws-chunked encoding.
   */
  contentSha256: string;
}

/** S3 refuses a header-signed request whose time is further than this from its own clock. */
const MAX_CLOCK_SKEW_MS = 15 * 60 * 1000;
/** The longest a presigned URL may be valid: seven days. */
const MAX_PRESIGNED_EXPIRY_SECONDS = 604_800;
const ALGORITHM = 'AWS4-HMAC-SHA256';
const AMZ_DATE = /^(\d{8})T\d{6}Z$/;

/** RFC 3986 encoding, as SigV4 wants it: everything but unreserved characters escaped. */
export function strictEncode(value: string): string {
  return encodeURIComponent(value).replace(/[!'()*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`);
}

function decodeComponent(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    throw new S3Error(400, 'InvalidURI', 'Could not parse the specified URI.');
  }
}

/** The path as S3 signs it: each segment decoded, then encoded strictly; never normalized. */
function canonicalUri(rawPath: string): string {
  return rawPath
    .split('/')
    .map((segment) => strictEncode(decodeComponent(segment)))
    .join('/');
}

/** Name and value pairs of a raw query string, decoded. */
export function queryPairs(rawQuery: string): [string, string][] {
  if (rawQuery === '') return [];
  return rawQuery.split('&').map((pair) => {
    const equals = pair.indexOf('=');
    return equals === -1
      ? [decodeComponent(pair), '']
      : [decodeComponent(pair.slice(0, equals)), decodeComponent(pair.slice(equals + 1))];
  });
}

function canonicalQuery(pairs: [string, string][]): string {
  return pairs
    .map(([name, value]) => [strictEncode(name), strictEncode(value)] as const)
    .sort(([nameA, valueA], [nameB, valueB]) =>
      nameA === nameB ? (valueA < valueB ? -1 : valueA > valueB ? 1 : 0) : nameA < nameB ? -1 : 1,
    )
    .map(([name, value]) => `${name}=${value}`)
    .join('&');
}

function headerValue(headers: IncomingHttpHeaders, name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value.join(',') : value;
}

function canonicalHeaders(headers: IncomingHttpHeaders, signedHeaders: string[]): string {
  return signedHeaders
    .map((name) => `${name}:${(headerValue(headers, name) ?? '').trim().replace(/\s+/g, ' ')}\n`)
    .join('');
}

const sha256Hex = (value: string) => createHash('sha256').update(value, 'utf8').digest('hex');
const hmac = (key: Buffer | string, value: string) => createHmac('sha256', key).update(value, 'utf8').digest();

function signature(secretAccessKey: string, scope: string[], stringToSign: string): string {
  const [date, region, service, terminator] = scope as [string, string, string, string];
  let key = hmac(`AWS4${secretAccessKey}`, date);
  for (const part of [region, service, terminator]) key = hmac(key, part);
  return createHmac('sha256', key).update(stringToSign, 'utf8').digest('hex');
}

function sameSignature(expected: string, given: string): boolean {
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The instant of an `X-Amz-Date` (`20261125T120000Z`). */
function amzDateMs(amzDate: string): number {
  const match = AMZ_DATE.exec(amzDate);
  if (!match) throw new S3Error(403, 'AccessDenied', `X-Amz-Date must be in the ISO8601 Long Format, got ${amzDate}`);
  const iso = `${amzDate.slice(0, 4)}-${amzDate.slice(4, 6)}-${amzDate.slice(6, 8)}T${amzDate.slice(9, 11)}:${amzDate.slice(11, 13)}:${amzDate.slice(13, 15)}Z`;
  return Date.parse(iso);
}

interface SignedRequest {
  method: string;
  rawPath: string;
  rawQuery: string;
  headers: IncomingHttpHeaders;
}

interface Authorization {
  credential: string;
  signedHeaders: string[];
  signature: string;
  amzDate: string;
  contentSha256: string;
  /** The query pairs that are signed: every one but the signature itself. */
  signedQuery: [string, string][];
  /** How long a presigned URL is valid; none for a request signed in its header. */
  expiresSeconds?: number;
}

function parseCredential(credential: string, credentials: Credentials, amzDate: string): string[] {
  const [accessKeyId, ...scope] = credential.split('/');
  if (scope.length !== 4 || scope[2] !== 's3' || scope[3] !== 'aws4_request') {
    throw new S3Error(400, 'AuthorizationQueryParametersError', `Malformed credential: ${credential}`);
  }
  if (accessKeyId !== credentials.accessKeyId) {
    throw new S3Error(403, 'InvalidAccessKeyId', 'The AWS Access Key Id you provided does not exist in our records.');
  }
  if (scope[0] !== amzDate.slice(0, 8)) {
    throw new S3Error(403, 'SignatureDoesNotMatch', 'The credential scope date does not match X-Amz-Date.');
  }
  return scope;
}

function fromHeader(request: SignedRequest, header: string): Authorization {
  const match = /^AWS4-HMAC-SHA256 Credential=([^,\s]+),\s*SignedHeaders=([^,\s]+),\s*Signature=([0-9a-f]+)$/.exec(
    header.trim(),
  );
  if (!match) throw new S3Error(400, 'InvalidArgument', 'Unsupported Authorization header; use AWS4-HMAC-SHA256.');
  const amzDate = headerValue(request.headers, 'x-amz-date');
  if (!amzDate) throw new S3Error(403, 'AccessDenied', 'AWS authentication requires a valid Date or x-amz-date header');
  const contentSha256 = headerValue(request.headers, 'x-amz-content-sha256');
  if (!contentSha256) {
    throw new S3Error(400, 'InvalidRequest', 'Missing required header for this request: x-amz-content-sha256');
  }
  return {
    credential: match[1]!,
    signedHeaders: match[2]!.split(';'),
    signature: match[3]!,
    amzDate,
    contentSha256,
    signedQuery: queryPairs(request.rawQuery),
  };
}

function fromQuery(pairs: [string, string][]): Authorization {
  const value = (name: string) => pairs.find(([candidate]) => candidate === name)?.[1];
  const required = (name: string) => {
    const found = value(name);
    if (found === undefined) {
      throw new S3Error(400, 'AuthorizationQueryParametersError', `Query-string authentication requires ${name}.`);
    }
    return found;
  };
  if (required('X-Amz-Algorithm') !== ALGORITHM) {
    throw new S3Error(400, 'AuthorizationQueryParametersError', `X-Amz-Algorithm only supports "${ALGORITHM}"`);
  }
  const expiresSeconds = Number(required('X-Amz-Expires'));
  if (!Number.isInteger(expiresSeconds) || expiresSeconds < 1 || expiresSeconds > MAX_PRESIGNED_EXPIRY_SECONDS) {
    throw new S3Error(
      400,
      'AuthorizationQueryParametersError',
      `X-Amz-Expires must be a whole number of seconds from 1 to ${MAX_PRESIGNED_EXPIRY_SECONDS}.`,
    );
  }
  return {
    credential: required('X-Amz-Credential'),
    signedHeaders: required('X-Amz-SignedHeaders').split(';'),
    signature: required('X-Amz-Signature'),
    amzDate: required('X-Amz-Date'),
    contentSha256: value('X-Amz-Content-Sha256') ?? 'UNSIGNED-PAYLOAD',
    signedQuery: pairs.filter(([name]) => name !== 'X-Amz-Signature'),
    expiresSeconds,
  };
}

/**
 * Checks a request's signature and time; answers what it signed of its body, or throws the
 * S3Error S3 would answer with (403 for a wrong, expired or unknown signature).
 */
export function verifySignature(request: SignedRequest, credentials: Credentials, now = Date.now()): SignedPayload {
  const header = headerValue(request.headers, 'authorization');
  const pairs = queryPairs(request.rawQuery);
  const presigned = pairs.some(([name]) => name === 'X-Amz-Signature');
  if (!header && !presigned) throw new S3Error(403, 'AccessDenied', 'Access Denied');
  const authorization = header ? fromHeader(request, header) : fromQuery(pairs);
  const signedAt = amzDateMs(authorization.amzDate);
  if (Number.isNaN(signedAt)) throw new S3Error(403, 'AccessDenied', 'X-Amz-Date is not a valid date');
  const scope = parseCredential(authorization.credential, credentials, authorization.amzDate);
  if (!authorization.signedHeaders.includes('host')) {
    throw new S3Error(403, 'AccessDenied', 'The host header must be signed.');
  }
  if (authorization.expiresSeconds !== undefined) {
    if (now < signedAt - MAX_CLOCK_SKEW_MS) throw new S3Error(403, 'AccessDenied', 'Request is not valid yet');
    if (now > signedAt + authorization.expiresSeconds * 1000) {
      throw new S3Error(403, 'AccessDenied', 'Request has expired');
    }
  } else if (Math.abs(now - signedAt) > MAX_CLOCK_SKEW_MS) {
    throw new S3Error(
      403,
      'RequestTimeTooSkewed',
      'The difference between the request time and the current time is too large.',
    );
  }
  const canonicalRequest = [
    request.method,
    canonicalUri(request.rawPath),
    canonicalQuery(authorization.signedQuery),
    canonicalHeaders(request.headers, authorization.signedHeaders),
    authorization.signedHeaders.join(';'),
    authorization.contentSha256,
  ].join('\n');
  const stringToSign = [ALGORITHM, authorization.amzDate, scope.join('/'), sha256Hex(canonicalRequest)].join('\n');
  const expected = signature(credentials.secretAccessKey, scope, stringToSign);
  if (!sameSignature(expected, authorization.signature)) {
    throw new S3Error(
      403,
      'SignatureDoesNotMatch',
      'The request signature we calculated does not match the signature you provided. Check your key and signing method.',
    );
  }
  return { contentSha256: authorization.contentSha256 };
}
