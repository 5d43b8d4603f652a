import { createHmac, timingSafeEqual } from 'node:crypto';
import type { CursorKeyRing } from './cursor-keys';
import { ApiError } from './errors';

/**
 * Opaque, tamper-evident page cursors: `<version>.<key id>.<position>.<mac>`, the MAC an
 * HMAC-SHA256 over the version, the key id, the position and everything the position is only
 * meaningful for (the operation, the organization and the filters). A cursor altered in any
 * part, truncated, made for other filters or another organization, or signed with a key no
 * longer accepted does not open. The organization is never read from the cursor: the caller's
 * goes into the MAC, so another's cursor simply fails.
 */

const VERSION = '1';

export interface CursorScope {
  operation: string;
  organizationId: number;
  /** The request's filters, normalized (absent ones omitted). */
  filters: Readonly<Record<string, string>>;
}

function canonicalFilters(filters: CursorScope['filters']): string {
  return JSON.stringify(Object.entries(filters).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

function mac(secret: Buffer, keyId: string, scope: CursorScope, position: string): Buffer {
  return createHmac('sha256', secret)
    .update(
      [VERSION, keyId, scope.operation, String(scope.organizationId), canonicalFilters(scope.filters), position].join(
        '\n',
      ),
    )
    .digest();
}

export function sealCursor(ring: CursorKeyRing, scope: CursorScope, position: string): string {
  const { id, secret } = ring.signing;
  const encodedPosition = Buffer.from(position, 'utf8').toString('base64url');
  return [VERSION, id, encodedPosition, mac(secret, id, scope, position).toString('base64url')].join('.');
}

const invalidCursor = () =>
  new ApiError(
    'VALIDATION_FAILED',
    'cursor is not a cursor this list issued for these filters (or its key was retired); repeat the request without it.',
  );

/** The position a cursor carries, if the cursor is genuine and made for this scope. */
export function openCursor(ring: CursorKeyRing, scope: CursorScope, cursor: string): string {
  const parts = cursor.split('.');
  if (parts.length !== 4) throw invalidCursor();
  const [version, keyId, encodedPosition, encodedMac] = parts as [string, string, string, string];
  const key = ring.verifying.find((candidate) => candidate.id === keyId);
  if (version !== VERSION || !key) throw invalidCursor();
  const position = Buffer.from(encodedPosition, 'base64url').toString('utf8');
  const expected = mac(key.secret, keyId, scope, position);
  const given = Buffer.from(encodedMac, 'base64url');
  // Base64url decoding skips characters outside its alphabet: re-encoding both parts proves they were canonical.
  if (
    given.length !== expected.length ||
    !timingSafeEqual(given, expected) ||
    given.toString('base64url') !== encodedMac ||
    Buffer.from(position, 'utf8').toString('base64url') !== encodedPosition
  ) {
    throw invalidCursor();
  }
  return position;
}
