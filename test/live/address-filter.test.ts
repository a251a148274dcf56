/**
 * The `address` filter on the live feeds (WebSocket `filter.address`, SSE `?address=`) against a real
 * explorer on anvil with real payments between payers, self-payments included: alone and with each
 * other field, every matching settlement exactly once (a settlement from A to B reaches both A's and
 * B's subscribers; a self-payment arrives once), and `since` replay switching to live without a gap or
 * a repeat. Expected lists come from the chain's own logs. "Nothing more" is shown without waiting on
 * a clock: a last settlement that matches is sent after the traffic, and messages on one connection
 * arrive in chain order, so once it is there everything before it is too.
 */
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { privateKeyToAccount } from 'viem/accounts'
import { decodeCursor } from '../../src/explorer/store/cursor.js'
import type { Hex, Settlement } from '../../src/wire/settlement.js'
import { key, settlementsOnChain, waitFor, sendSettlements } from '../../src/devnet/testing/index.js'
import { openSse, subscribe, useLiveExplorer, type SseClient, type WsClient } from './live-client.js'

const live = useLiveExplorer({ settlements: 2 })

const payerAddress = (k: number) => privateKeyToAccount(live.chain.deployment.payerKeys[k]!).address.toLowerCase() as Hex
/** Payer 0 and payer 1 of the devnet: payment i is paid by payer i mod 20. */
const A = () => payerAddress(0)
const B = () => payerAddress(1)

type Filter = Partial<Record<'token' | 'recipient' | 'payer' | 'orderReference' | 'acquirerId' | 'address', string>>

const matches = (e: Settlement, filter: Filter) =>
  Object.entries(filter).every(([field, value]) => (field === 'address' ? e.payer === value || e.recipient === value : e[field as keyof Settlement] === value))

/** 40 payments: A pays itself (0) and B (20), B pays A (1) and itself (21), every third payment goes to A. */
function sendTraffic(): Promise<unknown> {
  const { recipients } = live.chain.deployment
  return sendSettlements(live.chain, 40, {
    recipient: (i, payer) => {
      if (i === 0 || i === 21) return payer
      if (i === 1 || i % 3 === 0) return A()
      if (i === 20) return B()
      return recipients[i % recipients.length]!
    },
  })
}

/** The last settlement of a run: A pays B in token 0 (payment 0 is paid by payer 0 in token 0). */
async function sendLast(): Promise<Settlement> {
  const [sent] = await sendSettlements(live.chain, 1, { recipient: () => B() })
  return waitFor('the last settlement on chain', async () => (await settlementsOnChain(live.chain)).find((e) => e.txHash === sent!.txHash.toLowerCase()))
}

async function onChainAfter(cursor: string): Promise<Settlement[]> {
  const p = decodeCursor(cursor)!
  return (await settlementsOnChain(live.chain)).filter((e) => e.blockNumber > p.blockNumber || (e.blockNumber === p.blockNumber && e.logIndex > p.logIndex))
}

const reached = (events: Settlement[], last: Settlement) => events.at(-1)?.txHash === last.txHash

async function wsReached(c: WsClient, id: string, last: Settlement): Promise<void> {
  await waitFor(`subscription ${id} to reach the last settlement`, () => reached(c.settlements(id).map((m) => m.data as Settlement), last))
}

async function sseReached(stream: SseClient, last: Settlement): Promise<void> {
  await waitFor('the SSE stream to reach the last settlement', () => reached(stream.settlements(), last))
}

describe('the address filter on live feeds', () => {
  test('WebSocket and SSE subscribers get every settlement involving the address exactly once, alone and with other fields', async () => {
    const { deployment } = live.chain
    const token0 = deployment.tokens[0]!.address.toLowerCase()
    const token1 = deployment.tokens[1]!.address.toLowerCase()
    const filters: Record<string, Filter> = {
      all: {},
      a: { address: A() },
      b: { address: B() },
      aToken: { address: A(), token: token1 },
      aPaid: { address: A(), payer: A() },
      aReceived: { address: A(), recipient: A() },
      aSelf: { address: A(), payer: A(), recipient: A() },
      bPaidA: { address: A(), payer: B() },
      aAcquirer: { address: A(), acquirerId: deployment.acquirers[0]!.id.toLowerCase() },
    }
    const c = await live.client()
    let start = ''
    for (const [id, filter] of Object.entries(filters)) {
      const wire = id === 'a' ? { address: A().toUpperCase().replace('0X', '0x') } : filter
      const ack = await subscribe(c, { id, filter: wire })
      assert.equal(ack.type, 'SUBSCRIBED', JSON.stringify(ack))
      start = ack.cursor as string
    }
    const sse = { a: await openSse(live.explorer.url, `?address=${A()}`), bToken: await openSse(live.explorer.url, `?address=${B()}&token=${token0}`) }

    await sendTraffic()
    const last = await sendLast()
    await wsReached(c, 'all', last)
    const sent = await onChainAfter(start)
    assert.equal(sent.length, 41)

    for (const [id, filter] of Object.entries(filters)) {
      const expected = sent.filter((e) => matches(e, filter))
      assert.ok(expected.length > 0, `the traffic must exercise ${id}`)
      assert.deepEqual(c.settlements(id).map((m) => key(m.data)), expected.map(key), id)
    }
    assert.deepEqual(c.settlements('a').map((m) => m.data), sent.filter((e) => matches(e, { address: A() })))
    const selfPayments = c.settlements('a').filter((m) => m.data.payer === m.data.recipient)
    assert.deepEqual(selfPayments.map((m) => m.data.payer), [A()], 'the self-payment, once')

    await sseReached(sse.a, last)
    assert.deepEqual(sse.a.settlements(), sent.filter((e) => matches(e, { address: A() })))
    await sseReached(sse.bToken, last)
    assert.deepEqual(sse.bToken.settlements(), sent.filter((e) => matches(e, { address: B(), token: token0 })))
    for (const stream of Object.values(sse)) stream.close()
  })

  test('since replays what involves the address, then continues live with no gap and no repeat', async () => {
    const c = await live.client()
    const from = (await subscribe(c, { id: 'mark' })).cursor as string
    await sendTraffic()
    const midway = await sendLast()
    await wsReached(c, 'mark', midway)

    // Replays start while more traffic arrives: the switch to live happens under load.
    const sending = sendTraffic()
    const resumed = await live.client()
    const ack = await subscribe(resumed, { id: 'r', filter: { address: A() }, since: from })
    assert.equal(ack.type, 'SUBSCRIBED', JSON.stringify(ack))
    const bySince = await openSse(live.explorer.url, `?address=${A()}&since=${from}`)
    const byLastEventId = await openSse(live.explorer.url, `?address=${B()}`, { 'last-event-id': from })
    await sending
    const last = await sendLast()

    const after = await onChainAfter(from)
    await wsReached(resumed, 'r', last)
    assert.deepEqual(resumed.settlements('r').map((m) => m.data), after.filter((e) => matches(e, { address: A() })))
    await sseReached(bySince, last)
    assert.deepEqual(bySince.settlements(), after.filter((e) => matches(e, { address: A() })))
    await sseReached(byLastEventId, last)
    assert.deepEqual(byLastEventId.settlements(), after.filter((e) => matches(e, { address: B() })))
    bySince.close()
    byLastEventId.close()
  })
})
