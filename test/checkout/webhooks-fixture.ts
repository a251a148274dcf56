/**
 * Test harness for webhook delivery: a real receiver (node:http on 127.0.0.1) that records every request
 * and checks it with the `standardwebhooks` package against the secrets each kind of holder would have,
 * merchants and events written the way the checkout engine writes them, and worker options with small
 * timings.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import { after, before } from 'node:test'
import type { AddressInfo } from 'node:net'
import { Webhook } from 'standardwebhooks'
import type { WebhookOptions } from '../../src/config/webhook-options.js'
import { insertMerchant, type Merchant } from '../../src/processor/db/merchants.js'
import { openDatabase, type Database } from '../../src/processor/db/open-database.js'
import { enqueueWebhook, type WebhookType } from '../../src/processor/db/webhook-outbox.js'
import { generateWebhookSecret } from '../../src/processor/db/webhook-secrets.js'
import { createSecretBox } from '../../src/processor/webhooks/secret-box.js'
import { createLogger, type Logger } from '../../src/platform/observability/logger.js'
import { testDatabase } from '../../src/devnet/test-database/index.js'

export const log = createLogger('silent')

export interface ReceivedWebhook {
  id: string
  timestamp: number
  signatures: string[]
  headers: IncomingHttpHeaders
  body: string
  /** The charge the payload's data names. */
  chargeId: string
  receivedAt: number
  /** What the receiver answered (0: it hung up). */
  answer: number
}

/** The status to answer, 'hang' to never answer, or 'destroy' to drop the connection. */
export type Answer = number | 'hang' | 'destroy'

export interface Receiver {
  url: string
  port: number
  requests: ReceivedWebhook[]
  /** Most requests for one webhook-id in flight at the same time, over all ids. */
  maxConcurrentPerId(): number
  answer: (request: ReceivedWebhook) => Answer | Promise<Answer>
  close(): Promise<void>
}

export async function startReceiver(answer: Receiver['answer'] = () => 200, port = 0): Promise<Receiver> {
  const inFlight = new Map<string, number>()
  let maxConcurrent = 0
  const receiver: Receiver = {
    url: '',
    port: 0,
    requests: [],
    maxConcurrentPerId: () => maxConcurrent,
    answer,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
  const server: Server = createServer(async (req, res) => {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const body = Buffer.concat(chunks).toString('utf8')
    const id = String(req.headers['webhook-id'])
    inFlight.set(id, (inFlight.get(id) ?? 0) + 1)
    maxConcurrent = Math.max(maxConcurrent, inFlight.get(id)!)
    const received: ReceivedWebhook = {
      id,
      timestamp: Number(req.headers['webhook-timestamp']),
      signatures: String(req.headers['webhook-signature'] ?? '').split(' '),
      headers: req.headers,
      body,
      chargeId: (JSON.parse(body) as { data: { id: string } }).data.id,
      receivedAt: Date.now(),
      answer: 0,
    }
    receiver.requests.push(received)
    const decided = await receiver.answer(received)
    inFlight.set(id, inFlight.get(id)! - 1)
    if (decided === 'hang') return
    if (decided === 'destroy') return void req.socket.destroy()
    received.answer = decided
    res.writeHead(decided, { 'content-type': 'text/plain' }).end('ok')
  })
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))
  receiver.port = (server.address() as AddressInfo).port
  receiver.url = `http://127.0.0.1:${receiver.port}/webhooks`
  return receiver
}

/** Receivers a test file starts as it goes, closed together at its end. */
export function receiverSet(): { start(answer?: Receiver['answer']): Promise<Receiver>; closeAll(): Promise<void> } {
  const started: Receiver[] = []
  return {
    async start(answer) {
      const receiver = await startReceiver(answer)
      started.push(receiver)
      return receiver
    },
    closeAll: async () => void (await Promise.all(started.map((r) => r.close()))),
  }
}

/** A test file's database and receivers: opened before its tests, closed after them. */
export function webhookWorld(): { db: Database; receivers: ReturnType<typeof receiverSet> } {
  const world = { db: undefined as unknown as Database, receivers: receiverSet() }
  before(async () => {
    world.db = await openDatabase(await testDatabase(), log)
  })
  after(async () => {
    await world.receivers.closeAll()
    await world.db?.close()
  })
  return world
}

/** Whether a holder of `secret` accepts the request, checked by the `standardwebhooks` package itself. */
export function verifiesWith(secret: string, request: ReceivedWebhook): boolean {
  try {
    new Webhook(secret).verify(request.body, request.headers as Record<string, string>)
    return true
  } catch {
    return false
  }
}

/** Requests the receiver answered with a 2xx. */
export const delivered = (receiver: Receiver) => receiver.requests.filter((r) => r.answer >= 200 && r.answer < 300)

export const newMerchant = (db: Database, receiver: Receiver, name = 'Test Shop'): Promise<Merchant> =>
  insertMerchant(db.pool, { name, webhookUrl: receiver.url, acquirerId: null })

let charges = 0
export const newChargeId = () => `ch_${process.pid}_${++charges}`

/** An event as the checkout engine writes it: the charge as data. */
export function enqueue(db: Database, merchant: Merchant, chargeId: string, type: WebhookType = 'charge.confirming'): Promise<string> {
  return enqueueWebhook(db.pool, { merchantId: merchant.id, chargeId, type, data: { id: chargeId, status: type.slice('charge.'.length), amount: '1000000' } })
}

export async function eventRow(db: Database, id: string) {
  const { rows } = await db.pool.query<{ status: string; attempts: number; lastError: string | null; body: string; windowStartedAt: Date | null }>(
    `SELECT status, attempts, last_error AS "lastError", payload::text AS body, window_started_at AS "windowStartedAt" FROM webhook_events WHERE id = $1`,
    [id],
  )
  return rows[0]!
}

export async function attemptRows(db: Database, id: string) {
  const { rows } = await db.pool.query<{ attemptedAt: Date; statusCode: number | null; error: string | null; durationMs: number }>(
    `SELECT attempted_at AS "attemptedAt", status_code AS "statusCode", error, duration_ms AS "durationMs"
     FROM webhook_attempts WHERE event_id = $1 ORDER BY attempted_at, id`,
    [id],
  )
  return rows
}

/** What the test workers encrypt the master secrets with (WEBHOOK_ENCRYPTION_KEY). */
export const TEST_ENCRYPTION_KEY = 'webhook-test-encryption-key-0123456789abcdef'
export const testSealer = createSecretBox(TEST_ENCRYPTION_KEY)

export function testOptions(overrides: Partial<WebhookOptions> = {}): WebhookOptions {
  return {
    secretKey: generateWebhookSecret(),
    encryptionKey: TEST_ENCRYPTION_KEY,
    dataDir: '/nonexistent',
    timeoutMs: 2_000,
    retryWindowMs: 60_000,
    backoffBaseMs: 50,
    backoffMaxMs: 200,
    pollMs: 25,
    concurrency: 8,
    slowMs: 1_000,
    slowConcurrency: 64,
    perMerchantConcurrency: 8,
    breakerFailures: 1_000,
    breakerCooldownMs: 1_000,
    allowInternalTargets: true,
    ...overrides,
  }
}

/** A logger that keeps the ids of the webhooks a worker delivered. */
export function capturingLogger(): { log: Logger; delivered: Set<string> } {
  const deliveredIds = new Set<string>()
  const write = (line: string) => {
    const entry = JSON.parse(line) as { msg: string; id?: string }
    if (entry.msg === 'webhook delivered' && entry.id) deliveredIds.add(entry.id)
    return true
  }
  return { log: createLogger('debug', {}, write), delivered: deliveredIds }
}
