/**
 * Lambda event filtering (the `filter` of a table-stream task), the subset this project uses:
 * a pattern is an object whose keys name fields of the record; a value is either a nested
 * pattern (the field must be an object that matches it) or a leaf array, matched when the field
 * equals one of its literal entries (string, number, boolean or null) or starts with the
 * `{ prefix }` of one. A field the pattern names that the record lacks fails the match. Any other
 * filter syntax (`anything-but`, `numeric`, `exists`, ...) is refused: the local poller would
 * otherwise quietly pass records AWS drops, or the reverse.
 */

type Leaf = string | number | boolean | null | { prefix: string };

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function isLeaf(entry: unknown): entry is Leaf {
  if (entry === null || ['string', 'number', 'boolean'].includes(typeof entry)) return true;
  return isObject(entry) && Object.keys(entry).length === 1 && typeof entry.prefix === 'string';
}

/** Throws for a pattern outside the supported subset, naming where; run once at start. */
export function assertSupportedFilter(pattern: unknown, path = 'filter'): void {
  if (!isObject(pattern)) throw new Error(`${path}: a filter pattern must be an object`);
  for (const [key, value] of Object.entries(pattern)) {
    const at = `${path}.${key}`;
    if (Array.isArray(value)) {
      if (value.length === 0) throw new Error(`${at}: an empty array matches nothing`);
      const unsupported = value.find((entry) => !isLeaf(entry));
      if (unsupported !== undefined)
        throw new Error(`${at}: ${JSON.stringify(unsupported)} is not supported locally (only literals and {prefix})`);
    } else {
      assertSupportedFilter(value, at);
    }
  }
}

function matchesLeaf(entry: Leaf, value: unknown): boolean {
  if (isObject(entry)) return typeof value === 'string' && value.startsWith(entry.prefix);
  return value === entry;
}

/** Whether `record` passes `pattern`, as Lambda's event filtering decides it for the supported subset. */
export function matchesFilter(pattern: object, record: unknown): boolean {
  if (!isObject(record)) return false;
  for (const [key, expected] of Object.entries(pattern)) {
    const value = record[key];
    if (Array.isArray(expected)) {
      if (!(expected as unknown[]).some((entry) => isLeaf(entry) && matchesLeaf(entry, value))) return false;
    } else if (isObject(expected)) {
      if (!matchesFilter(expected, value)) return false;
    } else {
      return false;
    }
  }
  return true;
}
