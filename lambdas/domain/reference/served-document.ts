import { document, documentSha256 } from '#contract/document';
import type { Operations } from '#contract/types';

/** The document's version, as an entity tag: what changes whenever docs/openapi.yaml does. */
export const DOCUMENT_ETAG = `"${documentSha256.slice(0, 32)}"`;

/** Any cache may keep the document a few minutes: it changes only with a deployment. */
const CACHE_CONTROL = 'public, max-age=300';

/**
 * Whether an If-None-Match header names the document's current version (RFC 9110 §13.1.2): `*`, or
 * a list with its tag, weak or strong, since the comparison for GET is the weak one.
 */
export function namesCurrentVersion(ifNoneMatch: string | undefined): boolean {
  if (ifNoneMatch === undefined) return false;
  const tags = ifNoneMatch.split(',').map((tag) => tag.trim().replace(/^W\//, ''));
  return tags.includes('*') || tags.includes(DOCUMENT_ETAG);
}

type DocumentResponse =
  | { status: 200; body: Operations['getOpenApiDocument']['responses'][200]; headers: Record<string, string> }
  | { status: 304; headers: Record<string, string> };

/** GET /openapi.json: the contract as JSON, or 304 when the client's copy is current. */
export function servedDocument(ifNoneMatch: string | undefined): DocumentResponse {
  const headers = { ETag: DOCUMENT_ETAG, 'Cache-Control': CACHE_CONTROL };
  return namesCurrentVersion(ifNoneMatch) ? { status: 304, headers } : { status: 200, body: document, headers };
}
