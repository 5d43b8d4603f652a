/**
 * What a log line must never carry, taken out of every string written: API keys, webhook signing
 * secrets, credentials after an authorization scheme, and the signing part of presigned URLs.
 * Call sites should not log such values in the first place; this is the net under them, for the
 * values nobody chose to log (an error message quoting a URL, a stack, a provider's answer).
 */

export const REDACTED = '[redacted]';

/** Deeper values are cut: a log line describes, it does not dump. */
const MAX_DEPTH = 6;
const MAX_ENTRIES = 50;
const MAX_STRING_LENGTH = 8192;

/** Our API keys (`svc_<env>_<prefix>_<secret>`, lambdas/domain/access/api-keys.ts), malformed ones included. */
const API_KEY = /svc_(live|test)_[0-9a-z_]+/gi;
/** Webhook signing secrets (lambdas/domain/webhooks/signature.ts). */
const WEBHOOK_SECRET = /whsec_[0-9a-z+/=_-]*/gi;
/**
 * The credentials after an authorization scheme, whatever carries them. Case-sensitive as clients
 * write them, so that ordinary words ("a basic plan") pass unchanged.
 */
const AUTHORIZATION_CREDENTIALS = /\b(Bearer|BEARER|Basic|Digest)(\s+)[^\s"',;]+/g;
/** A URL; its query is dropped when it carries a request signature. */
const ANY_URL = /\b[a-z][a-z0-9+.-]*:\/\/[^\s"'<>`]+/gi;
const SIGNING_PARAMETER = /x-amz-(signature|credential|security-token)/i;
/** A signing parameter outside a URL (an encoded URL, a header list), with its value. */
const LOOSE_SIGNING_PARAMETER = /x-amz-(signature|credential|security-token)(=|%3d|:\s*)[^\s&"',;]*/gi;
/** Field names whose value is a secret whatever it looks like. */
const SECRET_FIELD = /authorization|cookie|secret|password|api[-_]?key/i;

function withoutSignedQuery(url: string): string {
  const query = url.indexOf('?');
  if (query < 0 || !SIGNING_PARAMETER.test(url)) return url;
  return `${url.slice(0, query)}?${REDACTED}`;
}

/** The text with every secret it carries replaced by `[redacted]`; other text is unchanged. */
export function redactText(text: string): string {
  const redacted = text
    .replace(ANY_URL, withoutSignedQuery)
    .replace(LOOSE_SIGNING_PARAMETER, REDACTED)
    .replace(API_KEY, (_, environment: string) => `svc_${environment}_${REDACTED}`)
    .replace(WEBHOOK_SECRET, `whsec_${REDACTED}`)
    .replace(AUTHORIZATION_CREDENTIALS, (_, scheme: string, space: string) => `${scheme}${space}${REDACTED}`);
  // Cut after redacting: cutting first could leave half a secret that no pattern recognizes.
  return redacted.length > MAX_STRING_LENGTH ? `${redacted.slice(0, MAX_STRING_LENGTH)}…[truncated]` : redacted;
}

function redactError(error: Error, depth: number, ancestors: Set<object>): Record<string, unknown> {
  const described: Record<string, unknown> = { name: error.name, message: error.message };
  const code = (error as { code?: unknown }).code;
  if (code !== undefined) described.code = code;
  if (error.stack) described.stack = error.stack;
  if (error.cause !== undefined) described.cause = error.cause;
  return redactEntries(Object.entries(described), depth, ancestors);
}

function redactEntries(entries: [string, unknown][], depth: number, ancestors: Set<object>): Record<string, unknown> {
  const redacted: Record<string, unknown> = {};
  for (const [key, value] of entries.slice(0, MAX_ENTRIES)) {
    const name = redactText(key);
    redacted[name] =
      SECRET_FIELD.test(key) && value !== undefined && value !== null && value !== ''
        ? REDACTED
        : redactValue(value, depth + 1, ancestors);
  }
  if (entries.length > MAX_ENTRIES) redacted['…'] = `${entries.length - MAX_ENTRIES} more fields`;
  return redacted;
}

/**
 * A copy of the value fit to be written as JSON: every string redacted, errors described (name,
 * message, stack, cause), cycles, depth and size bounded, what JSON cannot hold made readable.
 */
export function redactValue(value: unknown, depth = 0, ancestors: Set<object> = new Set()): unknown {
  if (typeof value === 'string') return redactText(value);
  if (typeof value === 'bigint') return value.toString();
  if (typeof value === 'function' || typeof value === 'symbol') return undefined;
  if (value === null || typeof value !== 'object') return value;
  if (ancestors.has(value)) return '[circular]';
  if (depth >= MAX_DEPTH) return '[too deep]';
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? String(value) : value.toISOString();
  if (ArrayBuffer.isView(value)) return `[${value.byteLength} bytes]`;
  ancestors.add(value);
  try {
    if (value instanceof Error) return redactError(value, depth, ancestors);
    if (Array.isArray(value)) {
      const items = value.slice(0, MAX_ENTRIES).map((item) => redactValue(item, depth + 1, ancestors));
      return value.length > MAX_ENTRIES ? [...items, `… ${value.length - MAX_ENTRIES} more items`] : items;
    }
    const toJSON = (value as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === 'function') return redactValue(toJSON.call(value), depth + 1, ancestors);
    if (value instanceof Map)
      return redactEntries(
        [...value.entries()].map(([key, item]) => [String(key), item]),
        depth,
        ancestors,
      );
    if (value instanceof Set) return redactValue([...value], depth, ancestors);
    return redactEntries(Object.entries(value), depth, ancestors);
  } finally {
    ancestors.delete(value);
  }
}
