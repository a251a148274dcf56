/**
 * The queries the latency and HTTP sections ask, built from values that exist in the synthetic chain:
 * each filter alone, common combinations, deep cursors and both orders.
 */
import { encodeCursor } from '../../src/explorer/store/index.js'
import type { EventsQuery } from '../../src/explorer/query/index.js'
import type { Hex } from '../../src/wire/index.js'
import { syntheticAcquirer, syntheticRecipient, syntheticToken } from '../../src/devnet/testing/index.js'
import type { SyntheticChain } from '../data/synthetic-chain.js'

export interface NamedQuery {
  name: string
  query: EventsQuery
}

/** A settlement from the middle of the chain: its order reference, transaction and position. */
export function sampleSettlement(chain: SyntheticChain, head: number, fraction: number) {
  for (let b = Math.floor(chain.shape.firstBlock + (head - chain.shape.firstBlock) * fraction); b <= head; b++) {
    const [record] = chain.records(b)
    if (record) return record
  }
  throw new Error('the chain holds no settlement past that point')
}

export function sampleQueries(chain: SyntheticChain, head: number): NamedQuery[] {
  const base = { limit: 20, order: 'desc' as const }
  const mid = sampleSettlement(chain, head, 0.5)
  const after = { blockNumber: mid.blockNumber, logIndex: mid.logIndex }
  const recent = chain.header(head - 2000)
  const q = (name: string, extra: Partial<EventsQuery>): NamedQuery => ({ name, query: { ...base, ...extra } })
  const recipient = syntheticRecipient(7)
  return [
    q('unfiltered desc', {}),
    q('unfiltered asc', { order: 'asc' }),
    q('unfiltered, cursor at the middle', { after }),
    q('token', { token: syntheticToken(1) }),
    q('recipient', { recipient }),
    q('recipient asc', { recipient, order: 'asc' }),
    q('recipient, cursor at the middle', { recipient, after }),
    q('payer', { payer: mid.payer }),
    q('orderReference', { orderReference: mid.reference.slice(0, 34) as Hex }),
    q('acquirerId', { acquirerId: syntheticAcquirer(3) }),
    q('block range (last 2000 blocks)', { fromBlock: head - 2000, toBlock: head }),
    q('timestamp range (last 2000 blocks)', { fromTimestamp: recent.timestamp }),
    q('limit 100', { limit: 100 }),
    q('token + recipient', { token: syntheticToken(1), recipient }),
    q('recipient + acquirerId', { recipient, acquirerId: syntheticAcquirer(3) }),
    q('payer + token', { payer: mid.payer, token: mid.token }),
    q('recipient + timestamp range', { recipient, fromTimestamp: recent.timestamp }),
    q('token + acquirerId (large intersection)', { token: syntheticToken(2), acquirerId: syntheticAcquirer(3) }),
  ]
}

/** The same query as a `/events` query string. */
export function queryString(query: EventsQuery): string {
  const params = new URLSearchParams()
  for (const key of ['token', 'recipient', 'payer', 'orderReference', 'acquirerId', 'fromBlock', 'toBlock', 'fromTimestamp', 'toTimestamp'] as const) {
    if (query[key] !== undefined) params.set(key, String(query[key]))
  }
  if (query.limit !== 20) params.set('limit', String(query.limit))
  if (query.order !== 'desc') params.set('order', query.order)
  if (query.after) params.set('cursor', encodeCursor(query.after.blockNumber, query.after.logIndex))
  const text = params.toString()
  return text ? `?${text}` : ''
}
