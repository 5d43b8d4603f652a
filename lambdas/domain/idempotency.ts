import { createHash } from 'node:crypto';

/** How long a key is remembered, like Stripe: long enough for any sane client retry loop. */
export const IDEMPOTENCY_RETENTION_SECONDS = 24 * 3600;

export function idempotencyKey(organizationId: number, operation: string, key: string) {
  return { pk: `ORG#${organizationId}`, sk: `IDEMPOTENCY#${operation}#${key}` };
}

function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value as Record<string, unknown>)
        .sort()
        .map((name) => [name, canonical((value as Record<string, unknown>)[name])]),
    );
  }
  return value;
}

/**
 * Fingerprint of a validated request body (defaults applied, keys sorted), so that an explicit
 * default and an omitted field count as the same request.
 */
export function requestFingerprint(body: unknown): string {
  return createHash('sha256')
    .update(JSON.stringify(canonical(body)))
    .digest('hex');
}
