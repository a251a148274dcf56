/** What every bench section gets: the mode, the synthetic chain, a logger and where to put profiles. */
import type { SyntheticChain } from '../data/synthetic-chain.js'

export interface BenchContext {
  quick: boolean
  chain: SyntheticChain
  /** Settlement counts of the stores that query, HTTP and footprint sections run against. */
  sizes: number[]
  profileDir: string
  /** Settlements the peers section indexes (`--peer-settlements`); its default when absent. */
  peerSettlements?: number
  /** Settlements the ingest section backfills (`--ingest-settlements`); its default when absent. */
  ingestSettlements?: number
  log(line: string): void
}

/** One section's outcome: markdown for RESULTS.md and the headline figures for the summary. */
export interface SectionResult {
  markdown: string
  headline: Record<string, string>
}
