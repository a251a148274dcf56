/**
 * One cell of every CSV file the product writes (the merchant's `charges.csv` and `refunds.csv`, the
 * explorer's `/events/export`), so that opening one in a spreadsheet runs nothing: text a spreadsheet
 * would take for a formula — starting with `=`, `+`, `-`, `@`, a tab or a CR (CSV injection, CWE-1236;
 * OWASP's list) — gets one apostrophe in front, and so does text that already starts with an apostrophe,
 * which keeps the rule reversible: **to read a cell back, drop one leading apostrophe**. A plain decimal
 * number (`-5`, `-1.50`) stays a number. Then RFC 4180: quoted, quotes doubled, when it holds a comma, a
 * quote, a CR or an LF.
 */

const FORMULA_START = /^[=+\-@\t\r']/
const PLAIN_NUMBER = /^-?\d+(?:\.\d+)?$/
const NEEDS_QUOTES = /[",\r\n]/

export function csvCell(value: string | number | bigint | null | undefined): string {
  const text = value === null || value === undefined ? '' : String(value)
  const safe = FORMULA_START.test(text) && !PLAIN_NUMBER.test(text) ? `'${text}` : text
  return NEEDS_QUOTES.test(safe) ? `"${safe.replaceAll('"', '""')}"` : safe
}

