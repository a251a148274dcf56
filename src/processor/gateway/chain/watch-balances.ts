/**
 * BALANCE_UPDATE: after each new block, the `Transfer` logs of the supported tokens name the holders
 * whose balances may have moved; those with a BALANCE subscription on that token get `balanceOf`
 * re-read and, when it differs from what they were last told, a push. Any transfer counts (settlements,
 * plain ERC-20 transfers, mints). After a gap too wide for one log read (a node outage), every
 * subscribed balance is re-read instead.
 */
import { parseAbiItem, type Hex } from 'viem'
import type { Logger } from '../../../platform/observability/index.js'
import type { ConnectionRegistry } from '../connection/connection-registry.js'
import type { GatewayConnection } from '../connection/gateway-connection.js'
import type { GatewayChain } from './gateway-chain.js'

export interface BalanceWatch {
  stop(): void
}

const transferEvent = parseAbiItem('event Transfer(address indexed from, address indexed to, uint256 value)')
const MAX_LOG_RANGE = 1_000n

interface Candidate {
  conn: GatewayConnection
  separator: Hex
  token: Hex
}

export function watchBalances(chain: GatewayChain, registry: ConnectionRegistry, pollIntervalMs: number, log: Logger): BalanceWatch {
  let stopped = false
  let timer: NodeJS.Timeout | undefined
  let last: bigint | undefined

  const tick = async () => {
    try {
      const head = await chain.publicClient.getBlockNumber({ cacheTime: 0 })
      if (head !== last) chain.headMoved()
      if (last !== undefined && head > last && registry.balanceWatchers.size > 0) {
        const candidates = head - last > MAX_LOG_RANGE ? everySubscription(registry, chain) : await movedSince(last + 1n, head, chain, registry)
        await pushChanges(candidates, chain)
      }
      last = head
    } catch (error) {
      log.warn('balance watch failed; retrying on the next block', { error })
    }
    if (!stopped) timer = setTimeout(tick, pollIntervalMs)
  }
  void tick()

  return {
    stop() {
      stopped = true
      clearTimeout(timer)
    },
  }
}

async function movedSince(fromBlock: bigint, toBlock: bigint, chain: GatewayChain, registry: ConnectionRegistry): Promise<Candidate[]> {
  const tokens = chain.tokens()
  // An empty address list would ask the node for every log.
  if (tokens.length === 0) return []
  const logs = await chain.publicClient.getLogs({ address: tokens.map((t) => t.address), event: transferEvent, fromBlock, toBlock })
  const candidates = new Map<string, Candidate>()
  for (const entry of logs) {
    const token = chain.tokenAt(entry.address.toLowerCase() as Hex)
    if (!token) continue
    for (const holder of [entry.args.from, entry.args.to]) {
      const conn = holder && registry.get(holder.toLowerCase() as Hex)
      if (conn?.balances.has(token.domainSeparator)) {
        candidates.set(`${conn.address}:${token.address}`, { conn, separator: token.domainSeparator, token: token.address })
      }
    }
  }
  return [...candidates.values()]
}

function everySubscription(registry: ConnectionRegistry, chain: GatewayChain): Candidate[] {
  const tokens = new Map(chain.tokens().map((t) => [t.domainSeparator, t.address]))
  const candidates: Candidate[] = []
  for (const conn of registry.balanceWatchers) {
    for (const separator of conn.balances.keys()) {
      const token = tokens.get(separator)
      if (token) candidates.push({ conn, separator, token })
    }
  }
  return candidates
}

async function pushChanges(candidates: Candidate[], chain: GatewayChain): Promise<void> {
  const balances = await Promise.all(candidates.map(({ conn, token }) => chain.balanceOf(token, conn.address!)))
  candidates.forEach(({ conn, separator }, i) => {
    const balance = balances[i]!
    if (!conn.open || !conn.balances.has(separator) || conn.balances.get(separator) === balance) return
    conn.balances.set(separator, balance)
    conn.send({ type: 'BALANCE_UPDATE', domainSeparator: separator, balance: balance.toString() })
  })
}
