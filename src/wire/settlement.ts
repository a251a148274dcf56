/**
 * The settlement as the explorer serves it (SPEC §2.1). Every hex string is lowercase with 0x;
 * amounts are decimal strings of integers in the token's smallest unit.
 */
export type Hex = `0x${string}`

export interface Settlement {
  txHash: Hex
  blockNumber: number
  logIndex: number
  timestamp: number
  token: Hex
  tokenSymbol: string
  tokenDecimals: number
  payer: Hex
  recipient: Hex
  amount: string
  fee: string
  orderReference: Hex
  acquirerId: Hex
  domainSeparator: Hex
}

/** Keys shared by `GET /events` and live subscriptions; they combine with AND. */
export interface SettlementFilter {
  token?: Hex
  recipient?: Hex
  payer?: Hex
  /** 16-byte order reference, 0x + 32 hex. */
  orderReference?: Hex
  /** 16-byte acquirer id, 0x + 32 hex. */
  acquirerId?: Hex
  /** Settlements whose payer or recipient is this address (a self-payment matches once). */
  address?: Hex
  /** Inclusive lower bound of `amount`: a decimal integer string in the token's smallest unit. */
  minAmount?: string
  /** Inclusive upper bound of `amount`, written like `minAmount`. */
  maxAmount?: string
}

/** The list envelope of `GET /events` (SPEC §2.2). */
export interface EventPage {
  events: Settlement[]
  nextCursor: string | null
  total: number
}

/** Figures per token symbol, or per token address in `byToken`. */
export type AmountsBySymbol = Record<string, string>

export interface TokenStats {
  symbol: string
  decimals: number
  settlements: number
  volume: string
  fees: string
  last24h: { settlements: number; volume: string }
}

/** One bucket of `GET /stats/series`: `start` is its first second (Unix, aligned to the UTC hour or day). */
export interface SeriesBucket {
  start: number
  settlements: number
  volume: AmountsBySymbol
  fees: AmountsBySymbol
}

/** `GET /stats/series`: every bucket of the range, ascending, empty ones included. */
export interface StatsSeries {
  interval: 'hour' | 'day'
  buckets: SeriesBucket[]
}

/** `GET /stats` (SPEC §2.3). */
export interface Stats {
  totalSettlements: number
  totalVolume: AmountsBySymbol
  totalFees: AmountsBySymbol
  last24h: { settlements: number; volume: AmountsBySymbol }
  byToken: Record<Hex, TokenStats>
}
