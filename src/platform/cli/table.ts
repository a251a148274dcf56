/** Rows printed as aligned columns for people; `--json` output stays the commands' own. */
export function formatTable(rows: readonly (readonly string[])[], { header = false } = {}): string {
  const widths: number[] = []
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, cell.length)))
  const lines = rows.map((row) => row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ').trimEnd())
  if (header && lines.length > 0) lines.splice(1, 0, widths.map((w) => '-'.repeat(w)).join('  '))
  return lines.join('\n')
}
