/**
 * The soak's end: with the faults stopped and the traffic drained, the explorer must hold exactly the
 * chain's settlements (every `PermittedTransfer` log of the contract, read with `eth_getLogs` over the
 * whole range) and each subscriber exactly the matching ones, each once.
 */
import { isDeepStrictEqual } from 'node:util'
import { setTimeout as sleep } from 'node:timers/promises'
import type { Hex } from 'viem'
import type { Settlement } from '../../src/wire/index.js'
import { pageThrough, settlementsOnChain, chainRpc as rpc } from '../../src/devnet/testing/index.js'
import { explorerReady, until } from './chaos.js'
import type { SoakStack } from './start-stack.js'
import { matches, type Subscriber } from './subscribers.js'
import type { TallyCheck } from './feed-tally.js'

export interface SubscriberResult extends TallyCheck {
  name: string
  expected: number
  settlements: number
  removals: number
}

export interface Verification {
  onChain: number
  indexed: number
  /** The explorer's settlements are the chain's, field for field, in chain order. */
  explorerMatches: boolean
  statsTotal: number
  /** Chain positions the explorer lacks / holds beyond the chain. */
  explorerMissing: string[]
  explorerExtra: string[]
  subscribers: SubscriberResult[]
  openSubmissions: number
}

const position = (s: Settlement) => `${s.blockNumber}:${s.logIndex}:${s.txHash}`

/** Waits until the submitter's queue is empty and the chain has been quiet for a few blocks. */
export async function drain(stack: SoakStack): Promise<number> {
  const open = async () => (await stack.db.pool.query<{ open: number }>(`SELECT count(*)::int AS open FROM submissions WHERE status NOT IN ('SUCCESS', 'FAILURE')`)).rows[0]!.open
  await until(async () => (await open()) === 0, 180_000)
  const head = Number(await rpc<Hex>(stack.devnet.deployment.rpcUrl, 'eth_blockNumber'))
  await until(async () => Number(await rpc<Hex>(stack.devnet.deployment.rpcUrl, 'eth_blockNumber')) >= head + 3, 30_000)
  return open()
}

export async function verifySoak(stack: SoakStack, subscribers: Subscriber[], openSubmissions: number): Promise<Verification> {
  const rpcUrl = stack.devnet.deployment.rpcUrl
  const chainHead = Number(await rpc<Hex>(rpcUrl, 'eth_blockNumber'))
  await until(async () => {
    if (!(await explorerReady(stack.explorerUrl))) return false
    const root = (await (await fetch(`${stack.explorerUrl}/`)).json()) as { indexedHead: { blockNumber: number } | null }
    return (root.indexedHead?.blockNumber ?? -1) >= chainHead
  }, 60_000)
  const onChain = await settlementsOnChain({ rpcUrl, deployment: stack.devnet.deployment, stop: async () => {} })
  const indexed = (await pageThrough(stack.explorerUrl, { order: 'asc', limit: '100' })).events
  const stats = (await (await fetch(`${stack.explorerUrl}/stats`)).json()) as { totalSettlements: number }
  const chainKeys = new Set(onChain.map(position))
  const indexedKeys = new Set(indexed.map(position))

  const expectedFor = (s: Subscriber) => onChain.filter((e) => matches(e, s.filter))
  // Subscribers get the last settlements a moment after the explorer indexed them.
  await until(() => subscribers.every((s) => s.tally.matches(expectedFor(s))), 60_000)
  await sleep(500)
  return {
    onChain: onChain.length,
    indexed: indexed.length,
    explorerMatches: isDeepStrictEqual(indexed, onChain),
    statsTotal: stats.totalSettlements,
    explorerMissing: [...chainKeys].filter((k) => !indexedKeys.has(k)),
    explorerExtra: [...indexedKeys].filter((k) => !chainKeys.has(k)),
    subscribers: subscribers.map((s) => ({
      name: s.name,
      expected: expectedFor(s).length,
      settlements: s.tally.settlements,
      removals: s.tally.removals,
      ...s.tally.check(expectedFor(s)),
    })),
    openSubmissions,
  }
}
