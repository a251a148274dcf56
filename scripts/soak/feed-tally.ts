/**
 * What one live subscriber was given, settlement by settlement: deliveries minus removals per identity
 * (position and transaction, since a reorg can put the same transaction at another position). Exactly
 * once means: in the end, each settlement the chain holds (that matches the subscriber's filter) nets to
 * one, everything else to zero, and no identity ever went above one.
 */
import type { Settlement } from '../../src/wire/index.js'

export const identity = (s: Pick<Settlement, 'blockNumber' | 'logIndex' | 'txHash'>) => `${s.blockNumber}:${s.logIndex}:${s.txHash}`

export interface TallyCheck {
  /** Expected settlements that did not net to one. */
  missing: string[]
  /** Identities that netted to something other than zero though the chain does not hold them. */
  extra: string[]
  /** Identities delivered again while already held (a duplicate, not a redelivery after REMOVED). */
  duplicates: string[]
}

export class FeedTally {
  readonly net = new Map<string, number>()
  readonly duplicates = new Set<string>()
  settlements = 0
  removals = 0

  delivered(s: Settlement): void {
    this.settlements++
    const key = identity(s)
    const count = (this.net.get(key) ?? 0) + 1
    if (count > 1) this.duplicates.add(key)
    this.net.set(key, count)
  }

  removed(s: Settlement): void {
    this.removals++
    const key = identity(s)
    this.net.set(key, (this.net.get(key) ?? 0) - 1)
  }

  check(expected: readonly Settlement[]): TallyCheck {
    const wanted = new Set(expected.map(identity))
    return {
      missing: [...wanted].filter((key) => this.net.get(key) !== 1),
      extra: [...this.net].filter(([key, n]) => !wanted.has(key) && n !== 0).map(([key, n]) => `${key} (${n})`),
      duplicates: [...this.duplicates],
    }
  }

  /** Whether it holds exactly `expected`, each once. */
  matches(expected: readonly Settlement[]): boolean {
    const { missing, extra } = this.check(expected)
    return missing.length === 0 && extra.length === 0
  }
}
