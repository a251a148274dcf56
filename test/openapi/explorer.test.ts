/**
 * The explorer's OpenAPI document (`GET /openapi.json`) against the explorer itself: the served document
 * validates, lists what the server lists, and every answer real requests get — pages with every filter,
 * lookups, statistics, health, readiness, metrics, the SSE and WebSocket feeds, and the 400/404/405/414/503
 * problems — matches the document's schema for that path and status. Every documented answer is seen
 * except 503 "shutting down" on each route, seen once here.
 */
import assert from 'node:assert/strict'
import { connect } from 'node:net'
import { after, before, describe, test } from 'node:test'
import WebSocket from 'ws'
import { FILTER_KEYS } from '../../src/explorer/query/events-query.js'
import { ENDPOINTS } from '../../src/explorer/api/rest/explorer-routes.js'
import { encodeCursor } from '../../src/explorer/store/cursor.js'
import type { Settlement } from '../../src/wire/settlement.js'
import { getJson, startTestExplorer, waitFor, waitForHead, type TestExplorer, sendSettlements, startLocalChain, type LocalChain } from '../../src/devnet/testing/index.js'
import { connectWs, openSse, subscribe } from '../live/live-client.js'
import { openApiChecker, type Answer, type OpenApiChecker } from './openapi-checker.js'

let chain: LocalChain
let explorer: TestExplorer
let openApi: OpenApiChecker
let events: Settlement[]
/** A cursor below every settlement: replaying from it yields them all. */
const START = encodeCursor(0, 0)

before(async () => {
  chain = await startLocalChain()
  const recipients = chain.deployment.recipients
  // A self-payment among them, so that `address` meets one.
  await sendSettlements(chain, 12, { acquirerEvery: 3, recipient: (i, payer) => (i === 5 ? payer : recipients[i % recipients.length]!) })
  explorer = await startTestExplorer(chain)
  await waitForHead(chain, explorer.url)
  const served = await fetch(`${explorer.url}/openapi.json`)
  assert.equal(served.status, 200)
  openApi = await openApiChecker((await served.json()) as Record<string, any>)
  events = (await getJson(explorer.url, '/events?order=asc&limit=100')).body.events
  assert.equal(events.length, 12)
})

after(async () => {
  await explorer?.stop()
  await chain?.stop()
})

async function request(method: string, path: string, headers: Record<string, string> = {}): Promise<Answer> {
  const response = await fetch(explorer.url + path, { method, headers })
  const text = await response.text()
  // JSON and problem+json bodies are parsed; NDJSON (a JSON text per line) stays text.
  const json = /[/+]json\b/.test(response.headers.get('content-type') ?? '')
  return { status: response.status, headers: response.headers, body: json && text ? JSON.parse(text) : text }
}

/** Requests `path` and checks the answer against the document under `template`. */
async function check(template: string, path: string, status: number, method = 'GET'): Promise<Answer> {
  const answer = await request(method, path)
  assert.equal(answer.status, status, `${method} ${path}: ${JSON.stringify(answer.body)}`)
  openApi.check(method, template, answer)
  return answer
}

const toTemplate = (endpoint: string) => endpoint.replace(/^\S+ /, '').replace(/:(\w+)/g, '{$1}')

describe('the document', () => {
  test('names every route the server lists at GET /, and no other', () => {
    assert.deepEqual(Object.keys(openApi.document.paths).sort(), ENDPOINTS.map(toTemplate).sort())
  })

  test('documents every query parameter GET / lists for /events, and each filter on the SSE stream', async () => {
    const root = await check('/', '/', 200)
    const parameters = openApi.document.paths['/events'].get.parameters.map((p: { $ref: string }) => p.$ref.split('/').at(-1)!.replace(/^events\./, ''))
    assert.deepEqual(parameters.sort(), [...(root.body as { eventsParams: string[] }).eventsParams].sort())
    const stream = openApi.document.paths['/events/stream'].get.parameters.map((p: { name: string }) => p.name)
    assert.deepEqual(stream.sort(), [...FILTER_KEYS, 'since', 'Last-Event-ID'].sort())
  })
})

describe('REST answers match the document', () => {
  test('pages: no filter, each filter, both orders, keyset paging, block and time bounds, all combined', async () => {
    const [first, last] = [events[0]!, events.at(-1)!]
    const queries = [
      '',
      '?order=asc',
      '?limit=1',
      `?token=${first.token.toUpperCase().replace('0X', '0x')}`,
      `?recipient=${first.recipient}`,
      `?payer=${first.payer}`,
      `?orderReference=${first.orderReference}`,
      `?acquirerId=${events[2]!.acquirerId}`,
      `?address=${events[5]!.payer}`,
      `?fromBlock=${first.blockNumber}&toBlock=${last.blockNumber}`,
      `?fromTimestamp=${first.timestamp}&toTimestamp=${last.timestamp}`,
      `?token=${first.token}&payer=${first.payer}&recipient=${first.recipient}&orderReference=${first.orderReference}&acquirerId=${first.acquirerId}&address=${first.payer}&fromBlock=0&toBlock=${last.blockNumber}&fromTimestamp=0&toTimestamp=${last.timestamp}&order=asc&limit=100`,
      '?token=0x0000000000000000000000000000000000000001',
      `?minAmount=${first.amount}`,
      `?token=${first.token}&minAmount=1&maxAmount=${first.amount}`,
      `?recipient=${first.recipient}&maxAmount=${last.amount}&order=asc`,
    ]
    for (const query of queries) await check('/events', `/events${query}`, 200)

    let cursor: string | null = null
    let seen = 0
    do {
      const page = (await check('/events', `/events?limit=5${cursor ? `&cursor=${cursor}` : ''}`, 200)).body as { events: unknown[]; nextCursor: string | null }
      seen += page.events.length
      cursor = page.nextCursor
    } while (cursor)
    assert.equal(seen, events.length)
  })

  test('exports: CSV and NDJSON files, and 400 problems before any byte', async () => {
    const csv = await check('/events/export', '/events/export?format=csv', 200)
    assert.match(csv.headers.get('content-disposition') ?? '', /^attachment; filename="settlements_head-\d+\.csv"$/)
    assert.equal((csv.body as string).trimEnd().split('\r\n').length, events.length + 1)
    const first = events[0]!
    const ndjson = await check('/events/export', `/events/export?format=ndjson&order=asc&token=${first.token}&minAmount=1`, 200)
    for (const line of (ndjson.body as string).trimEnd().split('\n')) openApi.checkSchema('#/components/schemas/Settlement', JSON.parse(line))
    for (const query of ['', '?format=xml', '?format=csv&limit=5', '?format=csv&cursor=x', '?format=csv&maxAmount=-1', '?format=ndjson&order=up']) {
      const answer = await check('/events/export', `/events/export${query}`, 400)
      assert.equal(typeof (answer.body as { param?: string }).param, 'string')
    }
  })

  test('filtered statistics and time series: answers and 400 problems as documented', async () => {
    const first = events[0]!
    const from = first.timestamp - 7200
    const to = events.at(-1)!.timestamp + 10
    const filters = [`token=${first.token}`, `recipient=${first.recipient}&fromTimestamp=${first.timestamp}`, `address=${first.payer}&minAmount=1&maxAmount=${10n ** 12n}`, `payer=${first.payer}&acquirerId=${first.acquirerId}&fromBlock=1&toBlock=${events.at(-1)!.blockNumber}`]
    for (const query of filters) {
      const stats = await check('/stats', `/stats?${query}`, 200)
      assert.ok((stats.body as { totalSettlements: number }).totalSettlements > 0, query)
      for (const interval of ['hour', 'day']) {
        const series = await check('/stats/series', `/stats/series?interval=${interval}&fromTimestamp=${from}&toTimestamp=${to}&${query.replace(/&?fromTimestamp=\d+/, '')}`, 200)
        assert.ok((series.body as { buckets: unknown[] }).buckets.length >= 1)
      }
    }
    for (const query of ['?minAmount=-1', '?orderReference=0x' + '00'.repeat(16), '?limit=1', '?fromTimestamp=9&toTimestamp=3']) {
      assert.equal(typeof ((await check('/stats', `/stats${query}`, 400)).body as { param?: string }).param, 'string')
    }
    for (const query of ['', '?interval=hour&fromTimestamp=0', '?interval=week&fromTimestamp=0&toTimestamp=1', `?interval=hour&fromTimestamp=0&toTimestamp=${3600 * 2000}`]) {
      assert.equal(typeof ((await check('/stats/series', `/stats/series${query}`, 400)).body as { param?: string }).param, 'string')
    }
  })

  test('lookups: found, not found, malformed', async () => {
    await check('/events/{txHash}', `/events/${events[3]!.txHash}`, 200)
    await check('/events/{txHash}', `/events/0x${'ab'.repeat(32)}`, 404)
    await check('/events/{txHash}', '/events/0x1234', 400)
    await check('/events/order/{orderReference}', `/events/order/${events[4]!.orderReference}`, 200)
    await check('/events/order/{orderReference}', `/events/order/0x${'cd'.repeat(16)}`, 404)
    await check('/events/order/{orderReference}', '/events/order/nope', 400)
  })

  test('stats, health, readiness, metrics and the document itself', async () => {
    const stats = await check('/stats', '/stats', 200)
    assert.equal((stats.body as { totalSettlements: number }).totalSettlements, 12)
    await check('/health', '/health', 200)
    await waitFor('/ready', async () => (await request('GET', '/ready')).status === 200)
    await check('/ready', '/ready', 200)
    const metrics = await check('/metrics', '/metrics', 200)
    assert.match(metrics.body as string, /^explorer_/m)
    await check('/openapi.json', '/openapi.json', 200)
  })

  test('400: every kind of refused parameter, on every route that takes none too', async () => {
    const refused = [
      '?limit=0',
      '?limit=101',
      '?limit=ten',
      '?order=up',
      '?cursor=not-a-cursor',
      '?payer=0x12',
      '?address=zz',
      '?acquirerId=0x00',
      '?fromBlock=9&toBlock=3',
      '?fromTimestamp=-1',
      '?color=blue',
      '?limit=1&limit=2',
      '?minAmount=1.5',
      '?maxAmount=0x10',
      '?minAmount=2&maxAmount=1',
    ]
    for (const query of refused) {
      const answer = await check('/events', `/events${query}`, 400)
      assert.equal(typeof (answer.body as { param?: string }).param, 'string')
    }
    for (const path of ['/', '/stats', '/health', '/ready', '/metrics', '/openapi.json']) await check(path, `${path}?x=1`, 400)
    await check('/events/{txHash}', `/events/${events[0]!.txHash}?x=1`, 400)
    await check('/events/order/{orderReference}', `/events/order/${events[0]!.orderReference}?x=1`, 400)
  })

  test('414: a request target over the limit, on every REST route', async () => {
    const long = `x=${'a'.repeat(9000)}`
    const routes: [string, string][] = [
      ['/', '/'],
      ['/events', '/events'],
      ['/events/export', '/events/export'],
      ['/events/{txHash}', `/events/${events[0]!.txHash}`],
      ['/events/order/{orderReference}', `/events/order/${events[0]!.orderReference}`],
      ['/stats', '/stats'],
      ['/stats/series', '/stats/series'],
      ['/health', '/health'],
      ['/ready', '/ready'],
      ['/metrics', '/metrics'],
      ['/openapi.json', '/openapi.json'],
    ]
    for (const [template, path] of routes) await check(template, `${path}?${long}`, 414)
  })

  test('404 for an unknown route and 405 for other methods are the documented problems', async () => {
    const missing = await request('GET', '/nowhere')
    assert.equal(missing.status, 404)
    assert.equal(missing.headers.get('content-type'), 'application/problem+json; charset=utf-8')
    openApi.checkSchema('#/components/responses/NotFound/content/application~1problem+json/schema', missing.body)
    for (const [method, path] of [['POST', '/events'], ['DELETE', '/'], ['PUT', '/stats'], ['PATCH', '/events/stream']] as const) {
      const answer = await request(method, path)
      openApi.check(method, path, answer)
      assert.equal(answer.headers.get('allow'), 'GET')
    }
  })
})

describe('live feeds match the document', () => {
  test('SSE: settlement frames carry Settlement JSON; bad filters are 400 problems', async () => {
    const sse = await openSse(explorer.url, `?since=${encodeURIComponent(START)}`)
    try {
      assert.equal(sse.status, 200)
      openApi.check('GET', '/events/stream', { status: sse.status, headers: new Headers(sse.headers as Record<string, string>), body: '' })
      const settlements = await waitFor('12 SSE settlements', () => (sse.settlements().length >= 12 ? sse.settlements() : undefined))
      for (const settlement of settlements) openApi.checkSchema('#/components/schemas/Settlement', settlement)
    } finally {
      sse.close()
    }
    for (const query of ['?payer=0x1', '?since=bad', '?limit=3']) {
      const refused = await openSse(explorer.url, query)
      openApi.check('GET', '/events/stream', { status: refused.status, headers: new Headers(refused.headers as Record<string, string>), body: JSON.parse(await waitFor('the body', () => refused.ended && refused.body)) })
      assert.equal(refused.status, 400)
    }
  })

  test('WebSocket: every message sent and received matches x-websocket', async () => {
    const clientMessages = '#/paths/~1stream/get/x-websocket/clientMessages'
    const serverMessages = '#/paths/~1stream/get/x-websocket/serverMessages'
    const ws = await connectWs(explorer.url)
    openApi.check('GET', '/stream', { status: 101, headers: new Headers(), body: undefined })
    try {
      const messages = [
        { type: 'SUBSCRIBE', channel: 'settlements', id: 'all', since: START },
        { type: 'SUBSCRIBE', channel: 'settlements', id: 'payer', filter: { payer: events[0]!.payer, address: events[0]!.recipient } },
      ]
      for (const message of messages) {
        openApi.checkSchema(clientMessages, message)
        const { type: _type, channel: _channel, ...rest } = message
        assert.equal((await subscribe(ws, rest)).type, 'SUBSCRIBED')
      }
      await ws.waitForSettlements(12, 'all')
      ws.sendRaw('{not json')
      ws.send({ type: 'SUBSCRIBE', channel: 'elsewhere' })
      ws.send({ type: 'UNSUBSCRIBE', id: 'nobody' })
      await waitFor('three errors', () => ws.messages.filter((m) => m.type === 'ERROR').length === 3)
      const unsubscribe = { type: 'UNSUBSCRIBE' }
      openApi.checkSchema(clientMessages, unsubscribe)
      ws.send(unsubscribe)
      await ws.next((m) => m.type === 'UNSUBSCRIBED')
      assert.deepEqual([...new Set(ws.messages.map((m) => m.type))].sort(), ['ERROR', 'SETTLEMENT', 'SUBSCRIBED', 'UNSUBSCRIBED'])
      for (const message of ws.messages) openApi.checkSchema(serverMessages, message)
    } finally {
      await ws.close()
    }
  })
})

/** The answer to a WebSocket upgrade the server refuses. */
function refusedUpgrade(baseUrl: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(`${baseUrl.replace('http', 'ws')}/stream`)
    socket.once('open', () => reject(new Error('the upgrade past the limit was accepted')))
    socket.once('unexpected-response', (_request, response) => {
      let text = ''
      response.on('data', (chunk: Buffer) => (text += chunk))
      response.on('end', () => resolve({ status: response.statusCode!, headers: new Headers(response.headers as Record<string, string>), body: JSON.parse(text) }))
    })
  })
}

describe('an explorer at its per-address connection limit', () => {
  let capped: TestExplorer
  before(async () => {
    capped = await startTestExplorer(chain, { WS_MAX_CONNECTIONS_PER_IP: '1' })
  })
  after(() => capped?.stop())

  test('a second live connection from one address is the documented 429 problem, WebSocket and SSE', async () => {
    const holder = await openSse(capped.url)
    try {
      const refused = await fetch(`${capped.url}/events/stream`)
      assert.equal(refused.status, 429)
      openApi.check('GET', '/events/stream', { status: 429, headers: refused.headers, body: await refused.json() })
      const upgrade = await refusedUpgrade(capped.url)
      assert.equal(upgrade.status, 429)
      openApi.check('GET', '/stream', upgrade)
    } finally {
      holder.close()
    }
  })
})

describe('an explorer without a node, at its connection limit', () => {
  let lonely: TestExplorer
  let stopped = false
  before(async () => {
    lonely = await startTestExplorer(chain, { RPC_URL: 'http://127.0.0.1:9', WS_MAX_CONNECTIONS: '1' })
  })
  after(() => (stopped ? undefined : lonely?.stop()))

  test('/ready is 503 with the documented body; a live connection past the limit is a 503 problem', async () => {
    const ready = await waitFor('a node error', async () => {
      const answer = await fetch(`${lonely.url}/ready`)
      const body = (await answer.json()) as { lastError?: string }
      return body.lastError ? { status: answer.status, headers: answer.headers, body } : undefined
    })
    assert.equal(ready.status, 503)
    openApi.check('GET', '/ready', ready)

    const holder = await openSse(lonely.url)
    try {
      const refused = await fetch(`${lonely.url}/events/stream`)
      assert.equal(refused.status, 503)
      openApi.check('GET', '/events/stream', { status: 503, headers: refused.headers, body: await refused.json() })
      const upgrade = await refusedUpgrade(lonely.url)
      assert.equal(upgrade.status, 503)
      openApi.check('GET', '/stream', upgrade)
    } finally {
      holder.close()
    }
  })

  test('once stopped, a kept-alive connection gets the documented 503 problem', async () => {
    const socket = connect(lonely.port, '127.0.0.1')
    const exchange = (path: string) =>
      new Promise<string>((resolve) => {
        let text = ''
        const onData = (chunk: Buffer) => {
          text += chunk
          const [head, body = ''] = text.split('\r\n\r\n')
          const length = Number(/content-length: (\d+)/i.exec(head!)?.[1] ?? NaN)
          if (body.length >= length) {
            socket.off('data', onData)
            resolve(text)
          }
        }
        socket.on('data', onData)
        socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`)
      })
    await exchange('/health')
    await lonely.stop()
    stopped = true
    const raw = await exchange('/stats')
    socket.destroy()
    const [head, body] = raw.split('\r\n\r\n')
    const headers = new Headers(head!.split('\r\n').slice(1).map((line) => [line.slice(0, line.indexOf(':')), line.slice(line.indexOf(':') + 1).trim()] as [string, string]))
    openApi.check('GET', '/stats', { status: Number(head!.split(' ')[1]), headers, body: JSON.parse(body!) })
  })
})

/** Refusals under load (a full query pool, the export caps): test/explorer/request-caps.test.ts provokes them and checks them against this document. */
const UNDER_LOAD = ['Busy', 'ExportsFull', 'TooManyExportsFromAddress'].map((name) => `#/components/responses/${name}`)

test('every documented answer was seen (503 "shutting down" once, above; the refusals under load in test/explorer/request-caps.test.ts)', () => {
  const refOf = (path: string, status: string) => openApi.document.paths[path].get.responses[status]?.$ref as string | undefined
  const skipped = (path: string, status: string) => (status === '503' && refOf(path, status) === '#/components/responses/ShuttingDown') || UNDER_LOAD.includes(refOf(path, status) ?? '')
  assert.deepEqual(openApi.unseen((_method, path, status) => skipped(path, status)), [])
})
