/**
 * The soak's faults, one at a time with a random pause between them: `kill -9` of the explorer
 * (restarted on the same data directory and port after a random outage), `kill -9` of the submitter
 * (restarted likewise), a chain reorganisation, and subscribers dropping their own connections.
 *
 * One at a time on purpose: a reorg is done only while the explorer is up and caught up and every
 * subscriber is connected, and the next fault waits until the explorer has indexed the new branch.
 * Cursors are chain positions, so a subscriber that is away while a reorg is rolled back (or an explorer
 * killed between a rollback and its announcement) is never told of the removal: the explorer's
 * CONFIRMATION_BLOCKS exists for that, and the soak runs with 0 to make reorgs reach the subscribers.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import type { Hex } from 'viem'
import { chainRpc as rpc } from '../../src/devnet/testing/index.js'
import { reorg, type ReorgKind, type ReorgResult } from './reorg.js'
import type { SoakStack } from './start-stack.js'
import type { Subscriber } from './subscribers.js'

export type FaultKind = 'explorer-kill' | 'submitter-kill' | 'reorg' | 'subscriber-drop'

export interface FaultRecord {
  /** Seconds since the soak started. */
  at: number
  kind: FaultKind
  /** Outage for a kill (ms), or the reorg's result. */
  outageMs?: number
  reorg?: ReorgResult
  /** Seconds until the system was back (explorer ready, or the branch indexed). */
  recoverySeconds: number
  skipped?: string
}

export interface ChaosOptions {
  stack: SoakStack
  subscribers: Subscriber[]
  signal: AbortSignal
  startedAt: number
  /** Mean pause between faults; each pause is drawn from 0.5–1.5 times it. */
  meanGapMs: number
  log: (line: string) => void
}

/** Faults are drawn from this deck, shuffled, without replacement: every kind comes up in every round. */
const DECK: FaultKind[] = ['explorer-kill', 'explorer-kill', 'explorer-kill', 'submitter-kill', 'submitter-kill', 'reorg', 'reorg', 'reorg', 'subscriber-drop']

const between = (low: number, high: number) => low + Math.random() * (high - low)

function shuffled<T>(items: readonly T[]): T[] {
  const out = [...items]
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1))
    ;[out[i], out[j]] = [out[j]!, out[i]!]
  }
  return out
}

/** Polls `check` every 100 ms until it holds; false when `timeoutMs` passed first. */
export async function until(check: () => Promise<boolean> | boolean, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (await Promise.resolve().then(check).catch(() => false)) return true
    await sleep(100)
  }
  return false
}

export const explorerReady = async (url: string) => (await fetch(`${url}/ready`, { signal: AbortSignal.timeout(2_000) })).status === 200

/** Whether the explorer's indexed head is the chain's block at that height, at or past `block`. */
async function indexedBranch(stack: SoakStack, block: number): Promise<boolean> {
  const root = (await (await fetch(`${stack.explorerUrl}/`, { signal: AbortSignal.timeout(2_000) })).json()) as { indexedHead: { blockNumber: number; blockHash: Hex } | null }
  const head = root.indexedHead
  if (!head || head.blockNumber < block) return false
  const onChain = await rpc<{ hash: Hex } | null>(stack.devnet.deployment.rpcUrl, 'eth_getBlockByNumber', [`0x${head.blockNumber.toString(16)}`, false])
  return onChain?.hash === head.blockHash
}

export async function runChaos(options: ChaosOptions): Promise<FaultRecord[]> {
  const { stack, subscribers, signal } = options
  const records: FaultRecord[] = []
  let reorgs = 0
  let deck: FaultKind[] = []
  const seconds = () => Math.round((Date.now() - options.startedAt) / 100) / 10

  while (!signal.aborted) {
    await sleep(between(options.meanGapMs / 2, options.meanGapMs * 1.5), undefined, { signal }).catch(() => {})
    if (signal.aborted) break
    if (deck.length === 0) deck = shuffled(DECK)
    const kind = deck.pop()!
    const at = seconds()
    const began = Date.now()
    const record: FaultRecord = { at, kind, recoverySeconds: 0 }
    if (kind === 'explorer-kill' || kind === 'submitter-kill') {
      const target = kind === 'explorer-kill' ? stack.explorer : stack.submitter
      record.outageMs = Math.round(between(300, 4_000))
      await target.kill9()
      await sleep(record.outageMs)
      await target.start()
      if (kind === 'explorer-kill') await until(() => explorerReady(stack.explorerUrl), 60_000)
    } else if (kind === 'subscriber-drop') {
      await Promise.all(subscribers.map((s) => s.drop().catch(() => {})))
    } else {
      const calm = (await until(() => explorerReady(stack.explorerUrl), 30_000)) && (await until(() => subscribers.every((s) => s.connected()), 30_000))
      if (!calm) record.skipped = 'explorer not ready or a subscriber not connected within 30 s'
      else {
        const reorgKind: ReorgKind = reorgs++ % 2 === 0 ? 'remined' : 'mempool'
        record.reorg = await reorg(stack.devnet.deployment.rpcUrl, reorgKind, 1 + Math.floor(Math.random() * 3), 1)
        // The new branch is indexed once the explorer's head is a chain block past the fork and the
        // transactions taken back (mined again one block later, or from the pool) are in.
        const target = record.reorg.forkBlock + record.reorg.depth + 1
        await until(() => indexedBranch(stack, target), 60_000)
      }
    }
    record.recoverySeconds = Math.round((Date.now() - began) / 100) / 10
    records.push(record)
    options.log(`${at}s ${kind}${record.reorg ? ` ${record.reorg.kind} depth ${record.reorg.depth} (${record.reorg.transactions} tx)` : ''}${record.outageMs ? ` outage ${record.outageMs} ms` : ''}${record.skipped ? ` skipped: ${record.skipped}` : ''}, back after ${record.recoverySeconds} s`)
  }
  return records
}
