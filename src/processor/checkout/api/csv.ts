/**
 * CSV as RFC 4180 says: CRLF line ends, a field quoted (inner quotes doubled) when it holds a comma, a
 * quote, CR or LF; a header line first. Amounts are written twice: in the token's smallest units, exactly
 * as the API gives them, and with the decimal point where the token's decimals put it (all of them: no
 * rounding, no thousands separators, so a spreadsheet reads a number).
 */

export type CsvColumn<T> = readonly [name: string, value: (row: T) => string | number | null | undefined]

const field = (value: string | number | null | undefined): string => {
  const text = value === null || value === undefined ? '' : String(value)
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text
}

export const csvLine = (fields: readonly (string | number | null | undefined)[]) => `${fields.map(field).join(',')}\r\n`

export const csvHeader = <T>(columns: readonly CsvColumn<T>[]) => csvLine(columns.map(([name]) => name))

export const csvRow = <T>(columns: readonly CsvColumn<T>[], row: T) => csvLine(columns.map(([, value]) => value(row)))

/** `1234500` with 6 decimals is `1.234500`; unknown decimals (a token no longer in the directory): empty. */
export function decimalAmount(units: string, decimals: number | undefined): string {
  if (decimals === undefined) return ''
  if (decimals === 0) return units
  const digits = units.padStart(decimals + 1, '0')
  return `${digits.slice(0, -decimals)}.${digits.slice(-decimals)}`
}
