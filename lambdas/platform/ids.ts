import { randomBytes } from 'node:crypto';

const CROCKFORD = '0123456789abcdefghjkmnpqrstvwxyz';

function encodeBase32(bytes: Uint8Array): string {
  let bits = 0;
  let value = 0;
  let out = '';
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += CROCKFORD[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += CROCKFORD[(value << (5 - bits)) & 31];
  return out;
}

/**
 * A lexicographically time-ordered id (48-bit millisecond time + 80 random bits, like a ULID),
 * so items keyed by it sort by creation without a separate index.
 */
export function sortableId(prefix: string, now = Date.now()): string {
  const bytes = new Uint8Array(16);
  let time = now;
  for (let index = 5; index >= 0; index -= 1) {
    bytes[index] = time % 256;
    time = Math.floor(time / 256);
  }
  bytes.set(randomBytes(10), 6);
  return `${prefix}${encodeBase32(bytes)}`;
}

/** 128 bits in base 32: the length of every sortable id after its prefix. */
const SORTABLE_ID_CHARACTERS = 26;
const CROCKFORD_TEXT = /^[0-9a-hjkmnp-tv-z]*$/;

/**
 * True when `value` has the shape of an id sortableId makes with `prefix`. Anything else names
 * nothing of ours and need not be looked up, which also keeps client text that is no id (too long
 * for a key, say) away from the table.
 */
export function isSortableId(prefix: string, value: string): boolean {
  return (
    value.length === prefix.length + SORTABLE_ID_CHARACTERS &&
    value.startsWith(prefix) &&
    CROCKFORD_TEXT.test(value.slice(prefix.length))
  );
}

export function randomToken(byteLength: number): string {
  return encodeBase32(randomBytes(byteLength));
}

export function requestId(): string {
  return sortableId('req_');
}
