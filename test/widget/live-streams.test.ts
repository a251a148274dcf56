/**
 * Issue 38 item 4, the widget's live status streams under a flood (real anvil, embedded PostgreSQL, and
 * `npm run widget` as a child process, so its memory and open files are its own; clients over real
 * sockets from loopback addresses of their own): 5,000 streams of one charge opened by a flood from 50
 * addresses meet a cap of 3,000 streams in the process and 80 per address. The extra ones get the
 * documented 429 / 503 problems with Retry-After and nothing else (no 500); a normal payer's page still
 * loads; the widget's memory stays bounded; and a status change watched by 3,000 streams costs one
 * database read (the widget's own `widget_live_status_reads_total`), every stream hearing it; so does a
 * refund's change watched by 400 streams. Behind a trusted proxy (TRUSTED_PROXIES) each forwarded client
 * has its own per-address cap.
 */
import assert from 'node:assert/strict'
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { request as httpRequest, type ClientRequest } from 'node:http'
import { after, before, test } from 'node:test'
import { chargeQueries, type ChargeRow } from '../../src/processor/db/charges.js'
import { insertRefund, refundQueries } from '../../src/processor/db/refunds.js'
import { issueEphemeralToken } from '../../src/processor/checkout/index.js'
import { randomBytes16 } from '../../src/wire/order-reference.js'
import type { Database } from '../../src/processor/db/open-database.js'
import { waitFor, startChainAndDatabase, scriptArgs } from '../../src/devnet/testing/index.js'
import type { LocalChain } from '../../src/devnet/testing/index.js'
import { checkPrometheusText } from '../helpers/prometheus.js'
import { storeCharge } from './stored-charge.js'

const MAX_STREAMS = 3_000
const PER_ADDRESS = 80
const ADDRESSES = 50
const ATTEMPTS_PER_ADDRESS = 100
/** A reverse proxy in front of the widget, trusted to name its clients in X-Forwarded-For. */
const PROXY = '127.0.12.1'
let chain: LocalChain
let db: Database
let widget: ChildProcess
let url: string
let chargeId: string
let charge: ChargeRow
const streams: Stream[] = []

interface Stream {
  status: number
  retryAfter: string | undefined
  contentType: string | undefined
  /** The `status` events heard, parsed. */
  events: { status: string }[]
  body: string
  request: ClientRequest
}

before(async () => {
  ;({ chain, db } = await startChainAndDatabase())
  widget = spawn(process.execPath, scriptArgs('scripts/widget.ts'), {
    env: {
      ...process.env,
      DATABASE_URL: db.url,
      RPC_URL: chain.rpcUrl,
      SETTLEMENT_CONTRACT: chain.deployment.settlementContract,
      START_BLOCK: String(chain.deployment.startBlock),
      // Any free port: the widget names the one it got (with no CHECKOUT_WIDGET_URL, its bound address).
      WIDGET_PORT: '0',
      WIDGET_MAX_STREAMS: String(MAX_STREAMS),
      WIDGET_MAX_STREAMS_PER_ADDRESS: String(PER_ADDRESS),
      TRUSTED_PROXIES: PROXY,
      LOG_LEVEL: 'error',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  let out = ''
  widget.stdout!.on('data', (chunk: Buffer) => (out += chunk))
  url = await waitFor('the widget to listen', () => /^widget: (http:\/\/\S+)\/s\/<charge id>$/m.exec(out)?.[1], 60_000)
  chargeId = `ch_${'c3'.repeat(12)}`
  charge = await storeCharge(db, chain, { id: chargeId, orderId: 'stream-1', merchantName: 'Stream Store' })
})
after(async () => {
  for (const stream of streams) stream.request.destroy()
  if (widget && widget.exitCode === null) {
    widget.kill('SIGTERM')
    await Promise.race([once(widget, 'exit'), new Promise((resolve) => setTimeout(resolve, 10_000))])
  }
  await db?.close()
  await chain?.stop()
})

/** Opens `/s/<id>/events` on a connection of its own from `localAddress`; resolves once the answer's head (and, for a stream, its first event) is in. */
function openStream(localAddress: string, path = `/s/${chargeId}/events`, headers: Record<string, string> = {}): Promise<Stream> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(`${url}${path}`, { localAddress, agent: false, headers }, (res) => {
      const stream: Stream = { status: res.statusCode!, retryAfter: res.headers['retry-after'], contentType: res.headers['content-type'], events: [], body: '', request }
      let pending = ''
      res.setEncoding('utf8').on('data', (chunk: string) => {
        if (stream.status !== 200) return void (stream.body += chunk)
        pending += chunk
        for (let end = pending.indexOf('\n\n'); end >= 0; end = pending.indexOf('\n\n')) {
          const data = /^event: status\ndata: (.*)$/m.exec(pending.slice(0, end))?.[1]
          pending = pending.slice(end + 2)
          if (data) stream.events.push(JSON.parse(data))
          if (stream.events.length === 1) resolve(stream)
        }
      })
      res.on('end', () => resolve(stream))
      res.on('error', () => resolve(stream))
    })
    request.setTimeout(30_000, () => reject(new Error(`no answer to ${path} from ${localAddress} in 30 s`)))
    request.on('error', reject)
    request.end()
  })
}

async function metrics(): Promise<Map<string, number>> {
  const response = await fetch(`${url}/metrics`)
  return checkPrometheusText({ status: response.status, headers: response.headers, body: await response.text() }, 'widget')
}

const rss = async () => (await metrics()).get('widget_process_resident_memory_bytes')!

test(`a flood of ${ADDRESSES * ATTEMPTS_PER_ADDRESS} streams from ${ADDRESSES} addresses meets the caps (${MAX_STREAMS} in all, ${PER_ADDRESS} per address) with the documented problems, and a payer's page still loads`, async () => {
  const quietRss = await rss()
  const attempts = Array.from({ length: ADDRESSES }, (_, a) => `127.0.9.${a + 1}`).flatMap((address) => Array.from({ length: ATTEMPTS_PER_ADDRESS }, () => address))
  // In waves of 250: the listen backlog would otherwise drop SYNs and stretch the flood by retransmits.
  for (let i = 0; i < attempts.length; i += 250) streams.push(...(await Promise.all(attempts.slice(i, i + 250).map((address) => openStream(address)))))
  const byStatus = new Map<number, number>()
  for (const stream of streams) byStatus.set(stream.status, (byStatus.get(stream.status) ?? 0) + 1)
  assert.deepEqual([...byStatus.keys()].sort(), [200, 429, 503], JSON.stringify([...byStatus]))
  assert.equal(byStatus.get(200), MAX_STREAMS, 'the process cap is met exactly')
  for (const stream of streams) {
    if (stream.status === 200) {
      assert.deepEqual(stream.events.map((event) => event.status), ['awaiting-payment'])
      continue
    }
    assert.equal(stream.contentType, 'application/problem+json; charset=utf-8')
    assert.equal(stream.retryAfter, '30')
    const problem = JSON.parse(stream.body)
    assert.equal(problem.status, stream.status)
    assert.match(problem.type, stream.status === 429 ? /too-many-requests$/ : /unavailable$/)
  }
  const perAddress = new Map<string, number>()
  for (const [i, stream] of streams.entries()) if (stream.status === 200) perAddress.set(attempts[i]!, (perAddress.get(attempts[i]!) ?? 0) + 1)
  assert.ok(Math.max(...perAddress.values()) <= PER_ADDRESS, 'no address holds more than its cap')

  const page = await fetch(`${url}/s/${chargeId}`)
  assert.equal(page.status, 200, 'a payer loading the payment page')
  assert.equal((await fetch(`${url}/health`)).status, 200)
  const refusedAddress = await openStream('127.0.10.1')
  assert.equal(refusedAddress.status, 503, 'a new stream while the process is full')

  const samples = await metrics()
  assert.equal(samples.get('widget_live_streams_open'), MAX_STREAMS)
  assert.equal(samples.get('widget_live_status_followed'), 1)
  assert.equal([...samples.keys()].filter((name) => name.startsWith('widget_http_requests_total') && /status="5(?!03)/.test(name)).length, 0, 'no 5xx but the documented 503')
  const grown = samples.get('widget_process_resident_memory_bytes')! - quietRss
  console.log(`widget RSS ${(quietRss / 2 ** 20).toFixed(0)} MiB quiet, +${(grown / 2 ** 20).toFixed(0)} MiB with ${MAX_STREAMS} streams open after ${attempts.length} attempts`)
  assert.ok(grown < MAX_STREAMS * 64 * 1024, `RSS grew ${grown} bytes: more than 64 KiB a stream`)
})

test(`a status change watched by ${MAX_STREAMS} streams costs one database read, and every stream hears it`, async () => {
  const open = streams.filter((stream) => stream.status === 200)
  assert.equal(open.length, MAX_STREAMS)
  const readsBefore = (await metrics()).get('widget_live_status_reads_total')!
  await chargeQueries.transition(db.pool, chargeId, { to: 'confirming', settlement: { txHash: `0x${'ab'.repeat(32)}`, blockNumber: 7, logIndex: 0 }, confirmations: 0 })
  await waitFor('every stream to hear the change', () => open.every((stream) => stream.events.length === 2), 30_000)
  assert.ok(open.every((stream) => stream.events[1]!.status === 'confirming'))
  assert.equal((await metrics()).get('widget_live_status_reads_total')! - readsBefore, 1)
})

test('streams given back free their slots: a closed stream makes room for the next', async () => {
  const mine = streams.filter((stream) => stream.status === 200).slice(0, 10)
  for (const stream of mine) stream.request.destroy()
  await waitFor('the closed streams to be given back', async () => (await metrics()).get('widget_live_streams_open') === MAX_STREAMS - 10, 10_000)
  const again = await openStream('127.0.10.2')
  streams.push(again)
  assert.equal(again.status, 200)
  assert.equal(again.events[0]!.status, 'confirming')
  const unknown = await openStream('127.0.10.3', `/s/ch_${'0'.repeat(24)}/events`)
  assert.equal(unknown.status, 404)
  assert.equal(JSON.parse(unknown.body).status, 404)
})

test('a refund\'s streams share its reads too: 400 streams, one read for a change', async () => {
  const closing = streams.filter((stream) => stream.status === 200 && !stream.request.destroyed).slice(0, 500)
  for (const stream of closing) stream.request.destroy()
  await waitFor('room for the refund streams', async () => (await metrics()).get('widget_live_streams_open')! <= MAX_STREAMS - 400, 10_000)
  const deadline = new Date(Date.now() + 600_000)
  const issued = issueEphemeralToken(deadline)
  const refund = await insertRefund(db.pool, {
    id: `re_${'d4'.repeat(12)}`, chargeId, merchantId: charge.merchantId, amount: '1000000', reason: null, token: charge.token, currency: charge.currency,
    payer: charge.beneficiary, recipient: `0x${'12'.repeat(20)}`, orderReference: randomBytes16(), acquirerId: charge.acquirerId, fees: '10', deadline,
    createdAt: new Date(), ephemeralTokenHash: issued.hash, ephemeralTokenExpiresAt: issued.expiresAt,
  })
  const watching = await Promise.all(Array.from({ length: 400 }, (_, i) => openStream(`127.0.11.${(i % 10) + 1}`, `/r/${refund.id}/events`)))
  streams.push(...watching)
  assert.deepEqual([...new Set(watching.map((stream) => stream.status))], [200])
  assert.ok(watching.every((stream) => stream.events[0]!.status === 'awaiting-signature'))
  const readsBefore = (await metrics()).get('widget_live_status_reads_total')!
  await refundQueries.transition(db.pool, refund.id, { to: 'canceled' })
  await waitFor('every refund stream to hear the change', () => watching.every((stream) => stream.events.length === 2), 30_000)
  assert.ok(watching.every((stream) => stream.events[1]!.status === 'canceled'))
  assert.equal((await metrics()).get('widget_live_status_reads_total')! - readsBefore, 1)
})

test('behind a trusted proxy each forwarded client has its own cap', async () => {
  await waitFor('room for a client behind the proxy', async () => (await metrics()).get('widget_live_streams_open')! <= MAX_STREAMS - PER_ADDRESS - 2, 10_000)
  const via = (client: string) => openStream(PROXY, `/s/${chargeId}/events`, { 'x-forwarded-for': client })
  const first = await Promise.all(Array.from({ length: PER_ADDRESS + 1 }, () => via('198.51.100.7')))
  streams.push(...first)
  assert.equal(first.filter((stream) => stream.status === 200).length, PER_ADDRESS)
  assert.equal(first.filter((stream) => stream.status === 429).length, 1)
  const other = await via('198.51.100.8')
  streams.push(other)
  assert.equal(other.status, 200, 'another client behind the same proxy is not held back')
})
