/**
 * An amount in token units as a payer reads it: the token's decimals applied, thousands grouped, at least
 * two fraction digits (25 USDC is "25.00", 1.5 is "1.50"), never rounded.
 */
import { formatUnits } from 'viem'

/** `0x1234…cdef`: `head` characters, an ellipsis, `tail` characters; short values whole. */
export const shortHex = (hex: string, head = 6, tail = 4) => (hex.length <= head + tail + 3 ? hex : `${hex.slice(0, head)}…${hex.slice(-tail)}`)

export function displayAmount(units: string | bigint, decimals: number): string {
  const [whole = '0', fraction = ''] = formatUnits(BigInt(units), decimals).split('.')
  // Grouped by hand: toLocaleString loads ICU's number formatting on first use, ~25 ms of every CLI run.
  const grouped = whole.replace(/\B(?=(\d{3})+$)/g, ',')
  const digits = fraction.padEnd(Math.min(2, decimals), '0')
  return digits ? `${grouped}.${digits}` : grouped
}
