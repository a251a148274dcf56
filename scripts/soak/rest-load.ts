/**
 * REST load for the soak: a few workers, each walking `GET /events` pages with random filters, orders,
 * page sizes and starting cursors (a cursor seen under one query reused under another, as a cursor
 * names a position), with lookups, `/stats` and deliberately bad requests (which must be 400) mixed in.
 * It counts answers by status and checks that every walk moves strictly one way through the chain.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import { privateKeyToAccount } from 'viem/accounts'
import type { Deployment } from '../../src/wire/index.js'
import type { EventPage, Settlement } from '../../src/wire/index.js'

export interface RestStats {
  requests: number
  /** Answers by status. */
  statuses: Record<string, number>
  /** Refused or reset connections (the explorer down or restarting). */
  networkErrors: number
  /** Bad requests answered with something other than 400. */
  badRequestsNot400: number
  /** Walks whose pages went back on themselves. */
  orderViolations: number
  pages: number
  /** Each answer's time (ms since the epoch) and latency (ms): p99 before and during a flood. */
  samples: { at: number; ms: number }[]
}

export interface RestLoadOptions {
  baseUrl: string
  deployment: Deployment
  workers: number
  /** Pause between one worker's requests. */
  pauseMs: number
  signal: AbortSignal
}

const pick = <T>(items: readonly T[]): T => items[Math.floor(Math.random() * items.length)]!
const chance = (p: number) => Math.random() < p

export function startRestLoad(options: RestLoadOptions): { stats: RestStats; done: Promise<void> } {
  const stats: RestStats = { requests: 0, statuses: {}, networkErrors: 0, badRequestsNot400: 0, orderViolations: 0, pages: 0, samples: [] }
  const { deployment } = options
  const payers = deployment.payerKeys.map((key) => privateKeyToAccount(key).address.toLowerCase())
  const seenCursors: string[] = []
  const seen: Settlement[] = []

  async function get(path: string): Promise<{ status: number; body: unknown } | undefined> {
    stats.requests++
    try {
      const started = performance.now()
      const response = await fetch(options.baseUrl + path, { signal: AbortSignal.timeout(10_000) })
      const text = await response.text()
      stats.samples.push({ at: Date.now(), ms: performance.now() - started })
      stats.statuses[response.status] = (stats.statuses[response.status] ?? 0) + 1
      return { status: response.status, body: text ? JSON.parse(text) : undefined }
    } catch {
      stats.networkErrors++
      return undefined
    }
  }

  function randomQuery(): URLSearchParams {
    const q = new URLSearchParams()
    q.set('limit', String(pick([1, 5, 20, 50, 100])))
    if (chance(0.5)) q.set('order', pick(['asc', 'desc']))
    if (chance(0.3)) q.set('token', pick(deployment.tokens).address)
    if (chance(0.3)) q.set('recipient', pick(deployment.recipients))
    if (chance(0.2)) q.set('payer', pick(payers))
    if (chance(0.15)) q.set('acquirerId', pick(deployment.acquirers).id)
    if (chance(0.15)) q.set('address', pick([...payers, ...deployment.recipients]))
    if (chance(0.15) && seen.length > 0) {
      const around = pick(seen).blockNumber
      q.set('fromBlock', String(Math.max(0, around - 20)))
      q.set('toBlock', String(around + 20))
    }
    if (chance(0.3) && seenCursors.length > 0) q.set('cursor', pick(seenCursors))
    return q
  }

  /** Up to a few pages of one query; each page must continue strictly past the one before. */
  async function walk(): Promise<void> {
    const q = randomQuery()
    const ascending = q.get('order') === 'asc'
    let last: Settlement | undefined
    for (let page = 0; page < 1 + Math.floor(Math.random() * 4) && !options.signal.aborted; page++) {
      const answer = await get(`/events?${q}`)
      if (answer?.status !== 200) return
      stats.pages++
      const body = answer.body as EventPage
      for (const event of body.events) {
        if (last && (ascending ? position(event) <= position(last) : position(event) >= position(last))) stats.orderViolations++
        last = event
      }
      if (body.events.length > 0 && seen.length < 5_000) seen.push(pick(body.events))
      if (!body.nextCursor) return
      if (seenCursors.length < 1_000) seenCursors.push(body.nextCursor)
      else seenCursors[Math.floor(Math.random() * seenCursors.length)] = body.nextCursor
      q.set('cursor', body.nextCursor)
      await sleep(options.pauseMs)
    }
  }

  async function other(): Promise<void> {
    const known = seen.length > 0 ? pick(seen) : undefined
    const roll = Math.random()
    if (roll < 0.3 && known) await get(`/events/${known.txHash}`)
    else if (roll < 0.5 && known) await get(`/events/order/${known.orderReference}`)
    else if (roll < 0.7) await get('/stats')
    else if (roll < 0.8) await get('/')
    else {
      const bad = pick(['/events?limit=500', '/events?cursor=not-a-cursor', '/events?token=0x12', '/events?fromBlock=9&toBlock=3', '/events?colour=blue', '/events/0x1234'])
      const answer = await get(bad)
      if (answer && answer.status !== 400) stats.badRequestsNot400++
    }
  }

  const worker = async () => {
    while (!options.signal.aborted) {
      await (chance(0.7) ? walk() : other())
      await sleep(options.pauseMs)
    }
  }
  const done = Promise.all(Array.from({ length: options.workers }, worker)).then(() => {})
  return { stats, done }
}

/** A settlement's chain position as one comparable number (log indexes stay far below 2^20 here). */
const position = (s: Settlement) => s.blockNumber * 2 ** 20 + s.logIndex

/** The 99th percentile latency (ms) of the answers between `from` and `to`. */
export function p99Between(stats: RestStats, from: number, to: number): number {
  const sorted = stats.samples.filter((s) => s.at >= from && s.at < to).map((s) => s.ms).sort((a, b) => a - b)
  return Math.round((sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))] ?? 0) * 10) / 10
}
