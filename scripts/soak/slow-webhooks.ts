/**
 * Slow webhook receivers beside a fast one (issue 21 item 9, issue 38 item 3), through the real delivery
 * worker on the soak's PostgreSQL: events written to the outbox as the checkout engine writes them for a
 * fast merchant (answers at once) and several slow ones (answering 2xx only after a while, or only past
 * WEBHOOK_TIMEOUT_MS, so every attempt times out and is retried). The fast merchant must get each of its
 * events exactly once and promptly (p95 under 2 s), whatever the slow ones do; no slow one may hold more
 * than WEBHOOK_MERCHANT_CONCURRENCY requests at a time. (The checkout engine itself is not in the soak: the
 * events stand for its charge changes.)
 */
import { randomBytes } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { webhookOptionsFromEnv } from '../../src/config/index.js'
import { enqueueWebhook, generateWebhookSecret, insertMerchant, type Database } from '../../src/processor/db/index.js'
import { startWebhookDelivery } from '../../src/processor/webhooks/index.js'
import type { Logger } from '../../src/platform/observability/index.js'

export interface SlowWebhookStats {
  fastEnqueued: number
  fastDelivered: number
  fastMissing: number
  fastDuplicates: number
  /** Milliseconds from enqueue to the fast receiver's first request: p50, p95, max. */
  fastLatencyMs: { p50: number; p95: number; max: number }
  slowEnqueued: number
  slowMerchants: number
  slowRequests: number
  slowMaxInFlight: number
  perMerchantConcurrency: number
}

interface Receiver {
  url: string
  server: Server
  inFlight: number
  maxInFlight: number
  requests: number
  /** webhook-id → requests answered 2xx, and when the first arrived. */
  seen: Map<string, { answered: number; firstAt: number }>
}

async function startReceiver(answerAfterMs: number): Promise<Receiver> {
  const receiver = { url: '', inFlight: 0, maxInFlight: 0, requests: 0, seen: new Map() } as unknown as Receiver
  receiver.server = createServer((req, res) => {
    req.resume()
    const id = String(req.headers['webhook-id'])
    receiver.requests++
    receiver.maxInFlight = Math.max(receiver.maxInFlight, ++receiver.inFlight)
    const entry = receiver.seen.get(id) ?? { answered: 0, firstAt: Date.now() }
    receiver.seen.set(id, entry)
    const answer = () => {
      receiver.inFlight--
      if (res.destroyed) return
      entry.answered++
      res.writeHead(200).end('ok')
    }
    if (answerAfterMs === 0) answer()
    else {
      const timer = setTimeout(answer, answerAfterMs)
      res.on('close', () => {
        if (res.writableEnded) return
        clearTimeout(timer)
        receiver.inFlight--
      })
    }
  })
  await new Promise<void>((resolve) => receiver.server.listen(0, '127.0.0.1', resolve))
  receiver.url = `http://127.0.0.1:${(receiver.server.address() as AddressInfo).port}/webhooks`
  return receiver
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? 0

/**
 * `slowAnswers`: one slow merchant per entry, its endpoint answering 2xx after that many ms (issue 38: ten
 * answering in 5 s must not hold a fast merchant past a p95 of 2 s; one past WEBHOOK_TIMEOUT_MS keeps to its share).
 */
export async function startSlowWebhooks(opts: { db: Database; log: Logger; rate: number; slowAnswers: number[]; signal: AbortSignal }) {
  const options = webhookOptionsFromEnv({ CHAIN_ID: '31337', WEBHOOK_SECRET_KEY: generateWebhookSecret(), WEBHOOK_ENCRYPTION_KEY: randomBytes(24).toString('hex') })
  const worker = await startWebhookDelivery(options, { db: opts.db, log: opts.log })
  const [fast, ...slow] = await Promise.all([startReceiver(0), ...opts.slowAnswers.map((ms) => startReceiver(ms))])
  const fastMerchant = await insertMerchant(opts.db.pool, { name: 'soak fast receiver', webhookUrl: fast!.url, acquirerId: null })
  const slowMerchants = await Promise.all(slow.map((r, i) => insertMerchant(opts.db.pool, { name: `soak slow receiver ${i + 1}`, webhookUrl: r.url, acquirerId: null })))
  const enqueuedAt = new Map<string, number>()
  let slowEnqueued = 0
  let n = 0
  const event = (merchantId: string) => {
    // Twenty charges per merchant in turn: events of one charge go out in order, so a slow charge holds its own.
    const chargeId = `ch_soak_${merchantId.slice(2, 8)}_${n % 20}`
    return enqueueWebhook(opts.db.pool, { merchantId, chargeId, type: 'charge.confirming', data: { id: chargeId, status: 'confirming', n } })
  }
  const timer = setInterval(() => {
    n++
    void event(fastMerchant.id).then((id) => enqueuedAt.set(id, Date.now()), (error: Error) => opts.log.warn('soak webhook not enqueued', { error: error.message }))
    for (const merchant of slowMerchants) void event(merchant.id).then(() => slowEnqueued++, () => {})
  }, 1000 / opts.rate)
  opts.signal.addEventListener('abort', () => clearInterval(timer), { once: true })

  return {
    /** Waits (up to `waitMs`) for every fast event, then stops the worker and both receivers. */
    async finish(waitMs = 60_000): Promise<SlowWebhookStats> {
      clearInterval(timer)
      const deadline = Date.now() + waitMs
      while (Date.now() < deadline && [...enqueuedAt.keys()].some((id) => !fast.seen.get(id)?.answered)) await new Promise((resolve) => setTimeout(resolve, 250))
      await worker.stop()
      for (const r of [fast, ...slow]) {
        r.server.closeAllConnections()
        await new Promise((resolve) => r.server.close(resolve))
      }
      const latencies = [...enqueuedAt].flatMap(([id, at]) => (fast.seen.has(id) ? [fast.seen.get(id)!.firstAt - at] : [])).sort((a, b) => a - b)
      return {
        fastEnqueued: enqueuedAt.size,
        fastDelivered: [...enqueuedAt.keys()].filter((id) => fast.seen.get(id)?.answered).length,
        fastMissing: [...enqueuedAt.keys()].filter((id) => !fast.seen.get(id)?.answered).length,
        fastDuplicates: [...fast.seen.values()].filter((s) => s.answered > 1).length,
        fastLatencyMs: { p50: percentile(latencies, 50), p95: percentile(latencies, 95), max: latencies.at(-1) ?? 0 },
        slowEnqueued,
        slowMerchants: slow.length,
        slowRequests: slow.reduce((n, r) => n + r.requests, 0),
        slowMaxInFlight: Math.max(0, ...slow.map((r) => r.maxInFlight)),
        perMerchantConcurrency: options.perMerchantConcurrency,
      }
    },
  }
}
