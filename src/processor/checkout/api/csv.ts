/**
 * CSV as RFC 4180 says: CRLF line ends, a header line first, each cell written by the product's one
 * `csvCell` (`wire/csv-cell.ts`: quoted when it must be, and merchant text that a spreadsheet would run
 * as a formula — an orderId or a refund reason starting with `=`, `+`, `-`, `@` — with an apostrophe in
 * front). Amounts are written twice: in the token's smallest units, exactly as the API gives them, and
 * with the decimal point where the token's decimals put it (all of them: no rounding, no thousands
 * separators, so a spreadsheet reads a number).
 */
import { csvCell } from '../../../wire/index.js'

export type CsvColumn<T> = readonly [name: string, value: (row: T) => string | number | null | undefined]

export const csvLine = (fields: readonly (string | number | null | undefined)[]) => `${fields.map(csvCell).join(',')}\r\n`

export const csvHeader = <T>(columns: readonly CsvColumn<T>[]) => csvLine(columns.map(([name]) => name))

export const csvRow = <T>(columns: readonly CsvColumn<T>[], row: T) => csvLine(columns.map(([, value]) => value(row)))

/** `1234500` with 6 decimals is `1.234500`; unknown decimals (a token no longer in the directory): empty. */
export function decimalAmount(units: string, decimals: number | undefined): string {
  if (decimals === undefined) return ''
  if (decimals === 0) return units
  const digits = units.padStart(decimals + 1, '0')
  return `${digits.slice(0, -decimals)}.${digits.slice(-decimals)}`
}
