/**
 * Fan-out at a few thousand subscribers: 3,000 WebSocket connections on one real explorer (real uWS
 * sockets, the hub, the indexer following a scripted chain), with the bench's mix of filters and more:
 * unfiltered, by token, recipient, payer, address (a settlement reaches an address topic once per address
 * it involves) and token with an amount bound, some with ids; while the chain keeps growing, 300 of them
 * add a subscription that replays from a `since` in history, and 200 others a live one without id or
 * `since` while a burst of blocks is being published (it starts after the cursor its acknowledgement names).
 *
 * Blocks go up to 40 settlements, so one unfiltered subscriber's share of a block passes uWS's 16 KB cork
 * buffer and the hub's 24 messages per group per loop turn: the hub holds the rest for the next turns
 * (group-turns.ts), and replays reaching the end meanwhile wait before they join their group.
 * Every subscription must receive exactly the settlements that match it, each once, in chain order.
 */
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import WebSocket from 'ws'
import type { RunningExplorer } from '../../src/explorer/start-explorer.js'
import { decodeCursor, encodeCursor } from '../../src/explorer/store/cursor.js'
import type { Hex } from '../../src/wire/settlement.js'
import { waitFor, ScriptedChain, type ScriptedSettlement, startScriptedExplorer, type ScriptedExplorer } from '../../src/devnet/testing/index.js'

const SUBSCRIBERS = 3000
const REPLAYING = 300
/** Subscribers that add a live subscription (no `since`) while blocks keep coming. */
const LATE = 200
const CONTRACT = '0x5e771e0000000000000000000000000000000020' as Hex
const address = (prefix: number, i: number) => `0x${prefix.toString(16)}${i.toString(16).padStart(38, '0')}` as Hex
const TOKENS = [0, 1, 2].map((i) => address(0x70, i))
const PAYERS = Array.from({ length: 12 }, (_, i) => address(0x9a, i))
const RECIPIENTS = Array.from({ length: 30 }, (_, i) => address(0x4e, i))
/** Settlements per block: history, then the blocks mined while everyone listens (0, 1 and the sizes around 16 KB and 32 messages). */
const HISTORY = [40, 5, 33]
const LIVE = [40, 0, 26, 40, 1, 33, 40, 12, 25, 40, 32, 3]
/** Mined at once after LIVE[6]: one commit of 400 settlements, which the hub publishes over many turns. */
const BURST = Array<number>(10).fill(40)

interface Mined extends ScriptedSettlement {
  blockNumber: number
  logIndex: number
}

interface Filter {
  token?: Hex
  recipient?: Hex
  payer?: Hex
  address?: Hex
  minAmount?: string
}

const matches = (s: Mined, f: Filter) =>
  (f.token === undefined || s.token === f.token) &&
  (f.recipient === undefined || s.recipient === f.recipient) &&
  (f.payer === undefined || s.payer === f.payer) &&
  (f.address === undefined || s.payer === f.address || s.recipient === f.address) &&
  (f.minAmount === undefined || s.amount >= BigInt(f.minAmount))

/** The mix: a sixth each unfiltered, by token, recipient, payer, address, and token with a lower amount bound. */
function filterOf(i: number): Filter {
  switch (i % 6) {
    case 0:
      return {}
    case 1:
      return { token: TOKENS[i % 3] }
    case 2:
      return { recipient: RECIPIENTS[i % RECIPIENTS.length] }
    case 3:
      return { payer: PAYERS[i % PAYERS.length] }
    case 4:
      return { address: i % 2 ? PAYERS[i % PAYERS.length] : RECIPIENTS[i % RECIPIENTS.length] }
    default:
      return { token: TOKENS[i % 3], minAmount: '500000' }
  }
}

/** The whole scenario on a fresh chain and explorer with `env` (SERVER_THREADS, for one). */
export function fanoutScale(env: Record<string, string> = {}): void {
  let seed = 20
  const pick = (n: number) => {
    seed = (Math.imul(seed, 1103515245) + 12345) >>> 0
    return (seed >>> 8) % n
  }

  const chain = new ScriptedChain({ contract: CONTRACT })
  const mined: Mined[] = []
  let references = 0

  function mine(count: number): void {
    const settlements = Array.from({ length: count }, (): ScriptedSettlement => {
      const payer = PAYERS[pick(PAYERS.length)]!
      // Now and then a payer pays itself: an address subscriber must still get that settlement once.
      const recipient = pick(10) === 0 ? payer : RECIPIENTS[pick(RECIPIENTS.length)]!
      return {
        token: TOKENS[pick(3)]!,
        payer,
        recipient,
        amount: BigInt(1 + pick(1_000_000)),
        fee: BigInt(pick(1000)),
        reference: `0x${(++references).toString(16).padStart(64, '0')}`,
        domainSeparator: `0x${'d5'.repeat(32)}`,
      }
    })
    const { blockNumber } = chain.mine(settlements)
    // ScriptedChain gives log i of a block the index 2i + 1.
    settlements.forEach((s, i) => mined.push({ ...s, blockNumber, logIndex: i * 2 + 1 }))
  }

  /** One subscription's deliveries, as `block:logIndex` keys in arrival order. */
  interface Received {
    filter: Filter
    /** Deliveries start after this position. */
    after: { blockNumber: number; logIndex: number }
    keys: string[]
  }

  interface Subscriber {
    socket: WebSocket
    /** By subscription id ('' for none). */
    received: Map<string, Received>
    acks: number
    errors: unknown[]
    closed?: number
  }

  let explorer: RunningExplorer
  let running: ScriptedExplorer | undefined
  /** The subscribers that add a late live subscription: after those that replay, among those whose first has an id. */
  const lateOnes = () => subscribers.filter((_, i) => i >= REPLAYING && i % 10 === 0).slice(0, LATE)
  const subscribers: Subscriber[] = []

  const indexed = () => waitFor(`block ${chain.head.blockNumber} indexed`, () => explorer.indexer.status().indexedBlock >= chain.head.blockNumber, 60_000)

  async function connect(url: string): Promise<Subscriber> {
    const socket = new WebSocket(`${url.replace(/^http/, 'ws')}/stream`)
    const sub: Subscriber = { socket, received: new Map(), acks: 0, errors: [] }
    socket.on('message', (data) => {
      const m = JSON.parse(data.toString()) as { type: string; subscription?: string; id?: string; cursor?: string; data?: { blockNumber: number; logIndex: number } }
      if (m.type === 'SETTLEMENT') sub.received.get(m.subscription ?? '')!.keys.push(`${m.data!.blockNumber}:${m.data!.logIndex}`)
      else if (m.type === 'SUBSCRIBED') {
        sub.acks++
        // A subscription starts after the position its acknowledgement names (its `since`, or the live end).
        sub.received.get(m.id ?? '')!.after = decodeCursor(m.cursor!)!
      }
      else sub.errors.push(m)
    })
    socket.on('close', (code) => (sub.closed = code))
    await new Promise<void>((resolve, reject) => {
      socket.once('open', resolve)
      socket.once('error', reject)
    })
    return sub
  }

  function subscribe(sub: Subscriber, filter: Filter, id: string, since?: Mined): void {
    const last = mined.at(-1)
    sub.received.set(id, { filter, after: since ?? last ?? { blockNumber: 0, logIndex: 0 }, keys: [] })
    const message = { type: 'SUBSCRIBE', channel: 'settlements', filter, ...(id ? { id } : {}), ...(since ? { since: encodeCursor(since.blockNumber, since.logIndex) } : {}) }
    sub.socket.send(JSON.stringify(message))
  }

  const expectedFor = (r: Received) =>
    mined
      .filter((s) => s.blockNumber > r.after.blockNumber || (s.blockNumber === r.after.blockNumber && s.logIndex > r.after.logIndex))
      .filter((s) => matches(s, r.filter))
      .map((s) => `${s.blockNumber}:${s.logIndex}`)

  before(async () => {
    for (const count of HISTORY) mine(count)
    running = await startScriptedExplorer(chain, { WS_MAX_CONNECTIONS: String(SUBSCRIBERS + 100), WS_MAX_CONNECTIONS_PER_IP: String(SUBSCRIBERS + 100), ...env })
    explorer = running.explorer
    await indexed()
  })

  after(async () => {
    for (const sub of subscribers) sub.socket.terminate()
    await running?.stop()
  })

  describe(`fan-out to ${SUBSCRIBERS} subscribers${env.SERVER_THREADS ? ` on ${env.SERVER_THREADS} server threads` : ''}`, () => {
    test('each subscription gets exactly its settlements, once each, in chain order, live and replayed alike', async () => {
      for (let i = 0; i < SUBSCRIBERS; i += 250) {
        const batch = await Promise.all(Array.from({ length: Math.min(250, SUBSCRIBERS - i) }, () => connect(explorer.url)))
        batch.forEach((sub, k) => subscribe(sub, filterOf(i + k), (i + k) % 10 === 0 ? `s${i + k}` : ''))
        subscribers.push(...batch)
      }
      await waitFor('every subscription acknowledged', () => subscribers.every((s) => s.acks === 1), 60_000)

      for (const [n, count] of LIVE.entries()) {
        mine(count)
        // Midway, replays from history join while blocks keep coming: their hand-over to live must not
        // lose or repeat a settlement.
        if (n === 3) subscribers.slice(0, REPLAYING).forEach((sub, i) => subscribe(sub, filterOf(i), 'replay', mined[7 + (i % 60)]))
        if (n === 6) {
          // While the burst's messages are held for later turns, late subscriptions without an id join the
          // groups that hold them (half unfiltered): each must start after the cursor of its acknowledgement.
          await indexed()
          for (const size of BURST) mine(size)
          await indexed()
          lateOnes().forEach((sub, i) => subscribe(sub, i % 2 ? filterOf(i) : {}, ''))
        }
        await indexed()
      }

      await waitFor('every replay and late subscription acknowledged', () => subscribers.every((s) => s.acks === s.received.size), 60_000)

      const primary = subscribers.map((sub, i) => sub.received.get(i % 10 === 0 ? `s${i}` : '')!)
      const all = [...primary, ...subscribers.slice(0, REPLAYING).map((sub) => sub.received.get('replay')!), ...lateOnes().map((sub) => sub.received.get('')!)]
      const expected = all.map(expectedFor)
      await waitFor('every subscription to receive what it is owed', () => all.every((r, i) => r.keys.length >= expected[i]!.length), 120_000).catch(() => undefined)
      for (const [i, r] of all.entries()) assert.deepEqual(r.keys, expected[i], `subscription ${i} with filter ${JSON.stringify(r.filter)}`)
      assert.deepEqual(subscribers.flatMap((s) => s.errors), [])
      assert.deepEqual(subscribers.filter((s) => s.closed !== undefined).map((s) => s.closed), [])
      // Not empty-handed: every kind of group received settlements, an unfiltered subscriber every live one,
      // and a replay everything after its `since`, history included.
      assert.equal(primary[0]!.keys.length, [...LIVE, ...BURST].reduce((a, b) => a + b, 0))
      for (let kind = 0; kind < 6; kind++) assert.ok(primary.filter((_, i) => i % 6 === kind).every((r) => r.keys.length > 0), `filter kind ${kind} received settlements`)
      assert.ok(all[SUBSCRIBERS]!.keys.length > primary[0]!.keys.length)
      const lateUnfiltered = all[SUBSCRIBERS + REPLAYING]!
      assert.ok(lateUnfiltered.keys.length > 0 && lateUnfiltered.keys.length < primary[0]!.keys.length)
    })
  })
}
