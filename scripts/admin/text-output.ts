/** Rows of cells in columns as wide as their widest cell, two spaces apart, the first row as given (a header). */
export function formatTable(rows: readonly (readonly string[])[]): string {
  const widths: number[] = [];
  for (const row of rows) row.forEach((cell, column) => (widths[column] = Math.max(widths[column] ?? 0, cell.length)));
  return rows
    .map((row) =>
      row
        .map((cell, column) => cell.padEnd(widths[column] ?? 0))
        .join('  ')
        .trimEnd(),
    )
    .join('\n');
}

/** One `name: value` line per field, objects as JSON: the text form of a single record. */
export function formatFields(record: Readonly<Record<string, unknown>>): string {
  return Object.entries(record)
    .map(([name, value]) => `${name}: ${typeof value === 'object' ? JSON.stringify(value) : String(value)}`)
    .join('\n');
}
