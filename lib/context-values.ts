/**
 * CDK context values in the two forms they arrive in: JSON values from cdk.json's `context`, and
 * strings from the command line (`-c key=false`, `-c key=90`, `-c 'key={"…":…}'`). Each reader
 * returns undefined for a value of neither form, so that lib/config.ts and lib/flood-control.ts
 * accept the same spellings and refuse the rest in their own words.
 */

/** A refused value as a message shows it: as JSON, so that the string "90" and the number 90 read apart. */
export const shown = (value: unknown): string => JSON.stringify(value) ?? String(value);

/** How a refusal reads: `edgeRateLimit must be a whole number from 10 to 2000000000, got 5`. */
export function refusal(name: string, expected: string, value: unknown): string {
  return `${name} must be ${expected}, got ${shown(value)}`;
}

/** `true` or `false`, as a boolean or as its text. */
export function booleanIn(value: unknown): boolean | undefined {
  if (value === true || value === 'true') return true;
  if (value === false || value === 'false') return false;
  return undefined;
}

/** A number, or the text of one (`NaN` for text that is none); an empty string is no number. */
export function numberIn(value: unknown): number | undefined {
  if (typeof value === 'number') return value;
  if (typeof value === 'string' && value.trim() !== '') return Number(value);
  return undefined;
}

/** A JSON value as itself or as its text (undefined for text that is no JSON). */
function jsonIn(value: unknown): unknown {
  if (typeof value !== 'string') return value;
  try {
    return JSON.parse(value);
  } catch {
    return undefined;
  }
}

/** A JSON object (not an array or null), as an object or as its text. */
export function objectIn(value: unknown): Record<string, unknown> | undefined {
  const parsed = jsonIn(value);
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
  return parsed as Record<string, unknown>;
}

/** A JSON array, as an array or as its text. */
export function arrayIn(value: unknown): unknown[] | undefined {
  const parsed = jsonIn(value);
  return Array.isArray(parsed) ? parsed : undefined;
}
