/**
 * SSE `/events/stream` with a real HTTP streaming client: frame format, filters (alone and combined)
 * against the chain's logs, heartbeat comments, the REST problem shape for bad parameters, and clean
 * teardown when the client goes away.
 */
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { Settlement } from '../../src/wire/settlement.js'
import { settlementsOnChain, waitFor, waitForHead, sendSettlements } from '../../src/devnet/testing/index.js'
import { openSse, useLiveExplorer } from './live-client.js'

const live = useLiveExplorer({ settlements: 2, env: { SSE_HEARTBEAT_SECONDS: '1' } })

async function metric(name: string): Promise<number> {
  const text = await (await fetch(`${live.explorer.url}/metrics`)).text()
  const line = text.split('\n').find((l) => l.startsWith(`explorer_${name} `))
  return Number(line?.split(' ')[1] ?? NaN)
}

describe('SSE /events/stream', () => {
  test('unfiltered, one filter and an AND of filters deliver exactly the matching settlements as frames', async () => {
    const token = live.chain.deployment.tokens[1]!.address.toLowerCase()
    const recipient = live.chain.deployment.recipients[0]!.toLowerCase()
    const streams = {
      all: await openSse(live.explorer.url),
      token: await openSse(live.explorer.url, `?token=${token.toUpperCase().replace('0X', '0x')}`),
      both: await openSse(live.explorer.url, `?token=${token}&recipient=${recipient}`),
    }
    const from = (await live.explorer.get('/')).body.indexedHead.blockNumber as number
    await sendSettlements(live.chain, 18)
    await waitForHead(live.chain, live.explorer.url)
    const sent = (await settlementsOnChain(live.chain)).filter((e) => e.blockNumber > from)
    const expected: Record<keyof typeof streams, Settlement[]> = {
      all: sent,
      token: sent.filter((e) => e.token === token),
      both: sent.filter((e) => e.token === token && e.recipient === recipient),
    }
    for (const [name, stream] of Object.entries(streams) as [keyof typeof streams, (typeof streams)['all']][]) {
      assert.ok(expected[name].length > 0, name)
      await waitFor(`${name} stream`, () => stream.settlements().length >= expected[name].length)
      await new Promise((resolve) => setTimeout(resolve, 150))
      assert.deepEqual(stream.settlements(), expected[name], name)
      for (const frame of stream.frames.filter((f) => f.event === 'settlement')) assert.match(frame.id!, /^[A-Za-z0-9_-]+$/)
      stream.close()
    }
    assert.equal(streams.all.status, 200)
    assert.equal(streams.all.headers['cache-control'], 'no-cache, no-transform')
    assert.match(streams.all.body, /^: connected\n\n(: keepalive\n\n)*event: settlement\nid: [A-Za-z0-9_-]+\ndata: \{"txHash"/)
  })

  test('the id of each frame is a cursor REST accepts', async () => {
    const stream = await openSse(live.explorer.url)
    await sendSettlements(live.chain, 2)
    await waitFor('two frames', () => stream.settlements().length >= 2)
    stream.close()
    const first = stream.frames.find((f) => f.event === 'settlement')!
    const { status, body } = await live.explorer.get(`/events?order=asc&cursor=${first.id}`)
    assert.equal(status, 200)
    assert.deepEqual(body.events[0], stream.settlements()[1])
  })

  test('a keepalive comment arrives every heartbeat interval', async () => {
    const stream = await openSse(live.explorer.url)
    await new Promise((resolve) => setTimeout(resolve, 2600))
    stream.close()
    assert.ok(stream.comments.filter((c) => c === 'keepalive').length >= 2, JSON.stringify(stream.comments))
  })

  test('bad parameters answer 400 problems naming the parameter, before any stream starts', async () => {
    const cases: [string, Record<string, string>, string][] = [
      ['?recipient=alice', {}, 'recipient'],
      ['?orderReference=0x12', {}, 'orderReference'],
      [`?address=0x${'z'.repeat(40)}`, {}, 'address'],
      ['?limit=5', {}, 'limit'],
      ['?since=nope', {}, 'since'],
      ['', { 'last-event-id': 'nope' }, 'Last-Event-ID'],
      ['?token=0x1&token=0x2', {}, 'token'],
    ]
    for (const [query, headers, param] of cases) {
      const stream = await openSse(live.explorer.url, query, headers)
      await waitFor('the answer', () => stream.ended)
      assert.equal(stream.status, 400, query)
      assert.match(String(stream.headers['content-type']), /^application\/problem\+json/)
      assert.equal(JSON.parse(stream.body).param, param)
    }
  })

  test('a client going away is torn down: connection and subscription gauges drop back', async () => {
    await waitFor('no SSE left from earlier tests', async () => (await metric('live_sse_connections')) === 0)
    const subscriptions = await metric('live_subscriptions')
    const streams = await Promise.all([openSse(live.explorer.url), openSse(live.explorer.url, `?payer=0x${'2'.repeat(40)}`)])
    await waitFor('two SSE connections', async () => (await metric('live_sse_connections')) === 2)
    assert.equal(await metric('live_subscriptions'), subscriptions + 2)
    for (const s of streams) s.close()
    await waitFor('SSE connections closed', async () => (await metric('live_sse_connections')) === 0)
    assert.equal(await metric('live_subscriptions'), subscriptions)
    await sendSettlements(live.chain, 1)
    await waitForHead(live.chain, live.explorer.url)
    assert.equal((await live.explorer.get('/health')).status, 200)
  })
})
