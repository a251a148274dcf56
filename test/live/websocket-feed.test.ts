/**
 * WebSocket `/stream` live delivery against a real explorer on anvil with real payments: unfiltered,
 * each filter alone, an AND of filters, several subscriptions on one connection, unsubscribe, chain
 * order, and cursors that REST accepts. Expected events come from the chain's own logs.
 */
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { privateKeyToAccount } from 'viem/accounts'
import { decodeCursor } from '../../src/explorer/store/cursor.js'
import { encodePk, type Position } from '../../src/explorer/store/keys.js'
import type { Hex, Settlement } from '../../src/wire/settlement.js'
import { key, settlementsOnChain, sendSettlements } from '../../src/devnet/testing/index.js'
import { subscribe, useLiveExplorer, type WsClient } from './live-client.js'

const live = useLiveExplorer({ settlements: 4, env: { WS_MAX_SUBSCRIPTIONS: '12' } })
const client = () => live.client()

/** Settlements on chain above `fromBlock`, in chain order. */
async function newOnChain(fromBlock: number): Promise<Settlement[]> {
  return (await settlementsOnChain(live.chain)).filter((e) => e.blockNumber > fromBlock)
}

async function headBlock(): Promise<number> {
  return (await live.explorer.get('/')).body.indexedHead.blockNumber as number
}

const ORDER_REF = (i: number) => `0x${'ab'.repeat(12)}${i.toString(16).padStart(8, '0')}` as Hex

describe('WebSocket /stream live delivery', () => {
  test('each filter alone, an AND of two, and no filter, on one connection, in chain order', async () => {
    const { deployment } = live.chain
    const token = deployment.tokens[1]!.address.toLowerCase()
    const recipient = deployment.recipients[0]!.toLowerCase()
    const payer = privateKeyToAccount(deployment.payerKeys[2]!).address.toLowerCase()
    const acquirerId = deployment.acquirers[0]!.id.toLowerCase()
    const orderReference = ORDER_REF(5)
    const filters: Record<string, Record<string, string>> = {
      all: {},
      token: { token },
      recipient: { recipient: recipient.toUpperCase().replace('0X', '0x') },
      payer: { payer },
      orderReference: { orderReference },
      acquirerId: { acquirerId },
      tokenAndRecipient: { token, recipient },
    }
    const c = await client()
    // Each subscription starts where its SUBSCRIBED message's cursor says (the hub's published end, which
    // may trail the head GET / reports while a commit is being published, and may move between two
    // subscriptions while the setup's blocks are still being published): everything after it is due.
    const starts = new Map<string, Position>()
    for (const [id, filter] of Object.entries(filters)) {
      const ack = await subscribe(c, { id, filter })
      assert.equal(ack.type, 'SUBSCRIBED', JSON.stringify(ack))
      assert.equal(ack.id, id)
      starts.set(id, decodeCursor(ack.cursor as string)!)
    }
    const fromHead = await headBlock()
    await sendSettlements(live.chain, 24, { orderReference: ORDER_REF })
    assert.equal((await newOnChain(fromHead)).length, 24)
    const onChain = await settlementsOnChain(live.chain)
    const after = (start: Position) => onChain.filter((e) => Buffer.compare(encodePk(e.blockNumber, e.logIndex), encodePk(start.blockNumber, start.logIndex)) > 0)

    const lowered = Object.fromEntries(Object.entries(filters).map(([id, f]) => [id, Object.fromEntries(Object.entries(f).map(([k, v]) => [k, v.toLowerCase()]))]))
    for (const [id, filter] of Object.entries(lowered)) {
      const expected = after(starts.get(id)!).filter((e) => Object.entries(filter).every(([field, value]) => e[field as keyof Settlement] === value))
      assert.ok(expected.length > 0, `the traffic must exercise filter ${id}`)
      const got = await c.waitForSettlements(expected.length, id)
      await new Promise((resolve) => setTimeout(resolve, 200))
      assert.deepEqual(c.settlements(id).map((m) => m.data), expected, `subscription ${id}`)
    }
    // One connection, many subscriptions: chain order across all of them.
    const positions = c.settlements().map((m) => m.data.blockNumber * 1e6 + m.data.logIndex)
    assert.deepEqual(positions, [...positions].sort((a, b) => a - b))
  })

  test('a subscription without an id gets messages without a subscription field', async () => {
    const c = await client()
    const ack = await subscribe(c, {})
    assert.equal(ack.type, 'SUBSCRIBED')
    const from = await headBlock()
    await sendSettlements(live.chain, 3)
    const sent = await newOnChain(from)
    const got = await c.waitForSettlements(3)
    assert.deepEqual(got.map((m) => m.data), sent)
    for (const m of got) assert.equal('subscription' in m, false)
  })

  test('the SUBSCRIBED cursor marks where a live subscription starts', async () => {
    const c = await client()
    const ack = (await subscribe(c, { id: 'start' })) as { type: string; cursor: string }
    assert.equal(typeof ack.cursor, 'string')
    const from = await headBlock()
    await sendSettlements(live.chain, 3)
    const sent = await newOnChain(from)
    await c.waitForSettlements(3, 'start')
    const { body } = await live.explorer.get(`/events?order=asc&cursor=${ack.cursor}`)
    assert.deepEqual(body.events.map(key), sent.map(key))
  })

  test('cursors from SETTLEMENT messages page REST from that point', async () => {
    const c = await client()
    await subscribe(c, { id: 'x' })
    const from = await headBlock()
    await sendSettlements(live.chain, 4)
    const sent = await newOnChain(from)
    const got = await c.waitForSettlements(4, 'x')
    const { status, body } = await live.explorer.get(`/events?order=asc&cursor=${got[1]!.cursor}`)
    assert.equal(status, 200)
    assert.deepEqual(body.events.map(key).slice(0, 2), sent.slice(2).map(key))
  })

  test('UNSUBSCRIBE by id stops that subscription only; without an id it stops all', async () => {
    const c = await client()
    await subscribe(c, { id: 'keep' })
    await subscribe(c, { id: 'drop' })
    await subscribe(c, { filter: { token: live.chain.deployment.tokens[0]!.address } })
    let from = c.messages.length
    c.send({ type: 'UNSUBSCRIBE', id: 'drop' })
    assert.deepEqual(await c.next((m) => m.type === 'UNSUBSCRIBED', from), { type: 'UNSUBSCRIBED', ids: ['drop'] })

    let block = await headBlock()
    await sendSettlements(live.chain, 3)
    await c.waitForSettlements(3, 'keep')
    // A round trip after them: the answer to a SUBSCRIBE follows whatever the server sent before it.
    assert.equal((await subscribe(c, { id: 'probe-1' })).type, 'SUBSCRIBED')
    assert.equal(c.settlements('drop').length, 0)
    assert.equal(c.settlements('keep').length, 3)

    from = c.messages.length
    c.send({ type: 'UNSUBSCRIBE' })
    const all = await c.next((m) => m.type === 'UNSUBSCRIBED', from)
    assert.deepEqual(new Set(all.ids as unknown[]), new Set(['keep', 'probe-1', null]))
    const before = c.settlements().length
    // Another client subscribed to everything: once it has the next payments, they were published, and a
    // round trip on the first shows whether any reached it.
    const witness = await client()
    await subscribe(witness, { id: 'all' })
    block = await headBlock()
    await sendSettlements(live.chain, 2)
    await witness.waitForSettlements(2, 'all')
    assert.equal((await subscribe(c, { id: 'probe-2' })).type, 'SUBSCRIBED')
    assert.equal(c.settlements().length, before, `nothing after unsubscribing all (from block ${block})`)
    assert.equal(c.closed, undefined)
  })

  test('the live metrics count connections, subscriptions and messages', async () => {
    const text = await (await fetch(`${live.explorer.url}/metrics`)).text()
    assert.match(text, /explorer_live_websocket_connections [1-9]/)
    assert.match(text, /explorer_live_subscriptions [1-9]/)
    assert.match(text, /explorer_live_messages_sent_total\{channel="websocket",type="SETTLEMENT"\} [1-9]/)
  })
})
