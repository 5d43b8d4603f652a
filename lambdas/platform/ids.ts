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

/** A non-negative safe integer in the same alphabet, most significant digit first. */
export function base32OfInteger(value: number): string {
  let digits = '';
  let rest = value;
  do {
    digits = `${CROCKFORD[rest % 32]}${digits}`;
    rest = Math.floor(rest / 32);
  } while (rest > 0);
  return digits;
}

/** The integer `base32OfInteger` wrote, or undefined for a character outside the alphabet. */
export function integerOfBase32(digits: string): number | undefined {
  let value = 0;
  for (const digit of digits) {
    const digitValue = CROCKFORD.indexOf(digit);
    if (digitValue < 0) return undefined;
    value = value * 32 + digitValue;
  }
  return value;
}

function idOf(prefix: string, milliseconds: number, unique: Uint8Array): string {
  const bytes = new Uint8Array(16);
  let time = milliseconds;
  for (let index = 5; index >= 0; index -= 1) {
    bytes[index] = time % 256;
    time = Math.floor(time / 256);
  }
  bytes.set(unique, 6);
  return `${prefix}${encodeBase32(bytes)}`;
}

/**
 * A lexicographically time-ordered id (48-bit millisecond time + 80 random bits, like a ULID),
 * so items keyed by it sort by creation without a separate index.
 */
export function sortableId(prefix: string, now = Date.now()): string {
  return idOf(prefix, now, randomBytes(10));
}

/** The milliseconds a sortable id can hold: from the Unix epoch to 2^48 − 1 (year 10889). */
export const SORTABLE_ID_LAST_MS = 2 ** 48 - 1;

/**
 * The first and the last id sortableId can make with `prefix` in the millisecond (between 0 and
 * SORTABLE_ID_LAST_MS): the bounds of a key range that selects ids by time.
 */
export function sortableIdsAt(prefix: string, milliseconds: number): { first: string; last: string } {
  return {
    first: idOf(prefix, milliseconds, new Uint8Array(10)),
    last: idOf(prefix, milliseconds, new Uint8Array(10).fill(255)),
  };
}

/** The millisecond a sortable id was made in; `id` must satisfy isSortableId. */
export function timeOfSortableId(prefix: string, id: string): number {
  // The first 10 characters hold 50 bits: the 48 of the time, then 2 of the random part.
  let value = 0;
  for (const character of id.slice(prefix.length, prefix.length + 10)) {
    value = value * 32 + CROCKFORD.indexOf(character);
  }
  return Math.floor(value / 4);
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
