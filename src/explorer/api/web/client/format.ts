/**
 * How values read on the page: amounts in token units with their symbol (the same `displayAmount` as the
 * widget and the CLI), hex shortened in tables and whole on hover, times in the viewer's zone with UTC on hover.
 */
import { displayAmount, type Settlement } from '../../../../wire/index.js'

export { shortHex } from '../../../../wire/index.js'

export const ZERO_ID = `0x${'0'.repeat(32)}`

export const amountText = (units: string, s: Pick<Settlement, 'tokenDecimals' | 'tokenSymbol'>) => `${displayAmount(units, s.tokenDecimals)} ${s.tokenSymbol}`

const localTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' })

export const timeText = (seconds: number) => localTime.format(new Date(seconds * 1000))

export const utcText = (seconds: number) => `${new Date(seconds * 1000).toISOString().replace('T', ' ').replace('.000Z', '')} UTC`

/** One settlement's identity: a transaction may hold several, and a reorg may put the same one in another block. */
export const settlementKey = (s: Pick<Settlement, 'txHash' | 'logIndex' | 'blockNumber'>) => `${s.blockNumber}:${s.logIndex}:${s.txHash}`

/** An amount in the token's smallest unit written in token units, every significant decimal, no grouping ("12.5"). */
export function tokenUnits(units: string, decimals: number): string {
  if (decimals === 0) return units
  const digits = units.padStart(decimals + 1, '0')
  const fraction = digits.slice(-decimals).replace(/0+$/, '')
  return fraction ? `${digits.slice(0, -decimals)}.${fraction}` : digits.slice(0, -decimals)
}

/** Token units typed by a person ("12.5") in the smallest unit ("12500000" at 6 decimals), or `undefined` when it is not one. */
export function smallestUnits(text: string, decimals: number): string | undefined {
  const match = /^(\d+)(?:\.(\d*))?$/.exec(text.trim())
  if (!match || (match[2] ?? '').length > decimals) return undefined
  return BigInt(`${match[1]}${(match[2] ?? '').padEnd(decimals, '0')}`).toString()
}
