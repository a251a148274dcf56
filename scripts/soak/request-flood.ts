/**
 * Requests that cost work, from FLOOD_ADDRESS beside the soak's real load (issue 38 item 4): slow exports
 * that read a chunk a second (each reopened a second after it ends), multi-filter `/events` queries that
 * walk candidate sets, and widget live streams on a real charge. The explorer and the widget must answer
 * past their caps with the documented 429/503 and Retry-After, never another 5xx, and keep serving the
 * soak's own clients: the REST workers' p99 during the flood is set against the same workers' before it.
 */
import { request, type IncomingMessage } from 'node:http'
import { fork } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { setTimeout as sleep } from 'node:timers/promises'
import { privateKeyToAccount } from 'viem/accounts'
import type { Deployment } from '../../src/wire/index.js'
import { FLOOD_ADDRESS } from './socket-flood.js'

export interface RequestFloodStats {
  /** Answers by kind and status: `export 200`, `query 503`, `stream 429` … */
  statuses: Record<string, number>
  /** 429 and 503 answers without a Retry-After. */
  refusalsWithoutRetryAfter: number
  /** Connections that failed before an answer (by kind). */
  errors: Record<string, number>
  exportBytes: number
}

export interface RequestFloodOptions {
  explorerUrl: string
  widgetUrl: string
  /** A charge whose live status the streams follow. */
  chargeId: string
  deployment: Deployment
  exports: number
  queries: number
  streams: number
  signal: AbortSignal
}

const REOPEN_MS = 1_000
const bump = (counts: Record<string, number>, key: string) => void (counts[key] = (counts[key] ?? 0) + 1)

export function startRequestFlood(opts: RequestFloodOptions): { stats: RequestFloodStats; done: Promise<void> } {
  const stats: RequestFloodStats = { statuses: {}, refusalsWithoutRetryAfter: 0, errors: {}, exportBytes: 0 }
  const { deployment } = opts
  const token = deployment.tokens[0]!.address

  /** One GET from FLOOD_ADDRESS; `read` consumes a 200's body as the kind of client it stands for. */
  function get(kind: string, url: string, read: (response: IncomingMessage) => Promise<void>): Promise<void> {
    return new Promise((resolve) => {
      const req = request(url, { localAddress: FLOOD_ADDRESS, agent: false }, (response) => {
        const status = response.statusCode ?? 0
        bump(stats.statuses, `${kind} ${status}`)
        if ((status === 429 || status === 503) && response.headers['retry-after'] === undefined) stats.refusalsWithoutRetryAfter++
        const body = status === 200 ? read(response) : (response.resume(), Promise.resolve())
        void body.finally(() => resolve())
        response.on('error', () => resolve())
      })
      req.on('error', (error) => {
        bump(stats.errors, `${kind}: ${error.message}`)
        resolve()
      })
      opts.signal.addEventListener('abort', () => req.destroy(), { once: true })
      req.end()
    })
  }

  const drain = (response: IncomingMessage) => new Promise<void>((resolve) => response.resume().on('end', resolve).on('close', resolve))
  /** A slow reader: one chunk a second, the socket left to fill meanwhile. */
  const readSlowly = async (response: IncomingMessage) => {
    response.pause()
    while (!response.readableEnded && !response.destroyed && !opts.signal.aborted) {
      const chunk = response.read() as Buffer | null
      if (chunk) stats.exportBytes += chunk.length
      await sleep(1_000)
    }
    response.destroy()
  }
  /** A live stream held open until the flood ends. */
  const hold = (response: IncomingMessage) =>
    new Promise<void>((resolve) => {
      response.resume().on('close', resolve)
      opts.signal.addEventListener('abort', () => response.destroy(), { once: true })
    })

  async function loop(make: () => Promise<void>): Promise<void> {
    while (!opts.signal.aborted) {
      await make()
      await sleep(REOPEN_MS, undefined, { signal: opts.signal }).catch(() => {})
    }
  }
  const payers = deployment.payerKeys.map((key) => privateKeyToAccount(key).address.toLowerCase())
  const recipients = deployment.recipients
  const done = Promise.all([
    ...Array.from({ length: opts.exports }, () => loop(() => get('export', `${opts.explorerUrl}/events/export?format=csv&token=${token}`, readSlowly))),
    ...Array.from({ length: opts.queries }, (_, i) => loop(() => get('query', `${opts.explorerUrl}/events?token=${token}&recipient=${recipients[i % recipients.length]}&payer=${payers[i % payers.length]}&limit=20`, drain))),
    ...Array.from({ length: opts.streams }, () => loop(() => get('stream', `${opts.widgetUrl}/s/${opts.chargeId}/events`, hold))),
  ]).then(() => {})
  return { stats, done }
}

/** `statuses` as `kind status: n`, sorted. */
export const describeRequestFlood = (s: RequestFloodStats) =>
  `${Object.entries(s.statuses).sort().map(([k, n]) => `${k}: ${n}`).join(', ')}; refusals without Retry-After ${s.refusalsWithoutRetryAfter}; ${Math.round(s.exportBytes / 1024)} KiB of exports read${Object.keys(s.errors).length ? `; errors ${Object.entries(s.errors).map(([k, n]) => `${k}: ${n}`).join(', ')}` : ''}`

/** Runs the flood in a process of its own (request-flood-process.ts); `stop()` ends it and resolves with its stats. */
export function forkRequestFlood(opts: Omit<RequestFloodOptions, 'signal'>): { pid: number | undefined; stop(): Promise<RequestFloodStats> } {
  const child = fork(fileURLToPath(new URL('./request-flood-process.ts', import.meta.url)), [JSON.stringify(opts)], { execArgv: ['--import', 'tsx'] })
  return {
    pid: child.pid,
    async stop() {
      const stats = new Promise<RequestFloodStats>((resolve) => child.once('message', (message) => resolve(message as RequestFloodStats)))
      child.send('stop')
      return stats
    },
  }
}
