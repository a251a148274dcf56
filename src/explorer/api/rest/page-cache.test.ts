import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { EventsQuery } from '../../query/events-query.js'
import type { Store } from '../../store/open-store.js'
import { toStored, type StoredSettlement } from '../../store/record.js'
import { countedWrite } from '../../store/settlement-writes.js'
import type { Hex } from '../../../wire/settlement.js'
import { PageCache } from './page-cache.js'

const address = (n: number) => `0x${n.toString(16).padStart(40, '0')}` as Hex
const bytes32 = (n: number) => `0x${n.toString(16).padStart(64, '0')}` as Hex
const A = address(0xa)
const B = address(0xb)
const TOKEN = address(0x70)
const ACQUIRER = `0x${'ac'.repeat(16)}` as Hex

function settlement(blockNumber: number, { payer = address(1), recipient = address(2), token = TOKEN, acquirer = '00'.repeat(16) } = {}): StoredSettlement {
  return toStored(
    {
      blockNumber,
      logIndex: 0,
      blockHash: bytes32(blockNumber),
      timestamp: 1_000 + blockNumber * 10,
      txHash: bytes32(blockNumber + 1),
      token,
      payer,
      recipient,
      amount: 1n,
      fee: 0n,
      reference: `0x${'0f'.repeat(16)}${acquirer}`,
      domainSeparator: bytes32(7),
    },
    blockNumber,
  )
}

/** Only the identity of the store matters here: it keys the count of settlement writes in flight. */
const store = {} as Store

const q = (extra: Partial<EventsQuery> = {}): EventsQuery => ({ limit: 20, order: 'desc', ...extra })
const body = (text: string) => Buffer.from(text)

/** A cache holding `pages` (each offered twice: admitted on its second miss). */
function cacheWith(pages: Record<string, EventsQuery>, maxBytes = 1 << 20): PageCache {
  const cache = new PageCache({ store, maxBytes })
  for (const [key, query] of Object.entries(pages)) {
    cache.offer(key, query, body(key), cache.version)
    cache.offer(key, query, body(key), cache.version)
    assert.equal(cache.get(key)?.body.toString(), key)
  }
  return cache
}

const held = (cache: PageCache, keys: string[]) => keys.filter((k) => cache.get(k) !== undefined)

test('a page is admitted on its second miss, and a page read before a drop is refused', () => {
  const cache = new PageCache({ store, maxBytes: 1 << 20 })
  cache.offer('recipient=a', q({ recipient: A }), body('one'), cache.version)
  assert.equal(cache.get('recipient=a'), undefined)
  const readAt = cache.version
  cache.committed([settlement(10, { recipient: B })])
  cache.offer('recipient=a', q({ recipient: A }), body('stale?'), readAt)
  assert.equal(cache.get('recipient=a'), undefined, 'read before a commit was reported: not kept')
  cache.offer('recipient=a', q({ recipient: A }), body('fresh'), cache.version)
  assert.equal(cache.get('recipient=a')?.body.toString(), 'fresh')
})

test('while a settlement write is in flight the cache neither answers nor keeps pages', async () => {
  const cache = cacheWith({ all: q() })
  let finish = () => {}
  const write = countedWrite(store, () => new Promise<void>((resolve) => (finish = resolve)))
  assert.equal(cache.get('all'), undefined)
  for (let i = 0; i < 2; i++) cache.offer('limit=1', q({ limit: 1 }), body('x'), cache.version)
  finish()
  await write
  assert.equal(cache.get('all')?.body.toString(), 'all')
  assert.equal(cache.get('limit=1'), undefined)
})

test('least recently used pages go first once the bytes pass the bound', () => {
  const cache = cacheWith({ aa: q({ payer: A }), bb: q({ payer: B }) }, 4)
  cache.get('aa')
  for (let i = 0; i < 2; i++) cache.offer('cc', q(), body('cc'), cache.version)
  assert.deepEqual(held(cache, ['aa', 'bb', 'cc']), ['aa', 'cc'])
  for (let i = 0; i < 2; i++) cache.offer('huge', q(), body('too large to fit'), cache.version)
  assert.equal(cache.get('huge'), undefined)
})

test('a commit or a rollback drops exactly the pages whose filters it matches inside their bounds', () => {
  const pages: Record<string, EventsQuery> = {
    all: q(),
    recipientA: q({ recipient: A }),
    recipientB: q({ recipient: B }),
    payerA: q({ payer: A }),
    addressA: q({ address: A }),
    tokenAndRecipientA: q({ token: TOKEN, recipient: A }),
    acquirer: q({ acquirerId: ACQUIRER }),
    upToBlock50: q({ toBlock: 50 }),
    fromBlock200: q({ fromBlock: 200 }),
    blocks90to110: q({ fromBlock: 90, toBlock: 110, recipient: A }),
    untilTime1500: q({ toTimestamp: 1_500 }),
    fromTime1900: q({ fromTimestamp: 1_900 }),
  }
  const keys = Object.keys(pages)
  const expectDrops = (change: (cache: PageCache) => void, dropped: string[]) => {
    const cache = cacheWith(pages)
    change(cache)
    assert.deepEqual(held(cache, keys), keys.filter((k) => !dropped.includes(k)))
  }
  // Block 100, time 2000, paid by 0x…01 to A.
  expectDrops((c) => c.committed([settlement(100, { recipient: A })]), ['all', 'recipientA', 'addressA', 'tokenAndRecipientA', 'blocks90to110', 'fromTime1900'])
  expectDrops((c) => c.removed([settlement(100, { recipient: A })]), ['all', 'recipientA', 'addressA', 'tokenAndRecipientA', 'blocks90to110', 'fromTime1900'])
  // Block 40, time 1400, A paying itself, through the acquirer.
  expectDrops((c) => c.committed([settlement(40, { payer: A, recipient: A, acquirer: 'ac'.repeat(16) })]), [
    'all',
    'recipientA',
    'payerA',
    'addressA',
    'tokenAndRecipientA',
    'acquirer',
    'upToBlock50',
    'untilTime1500',
  ])
  // Another token to A: the token + recipient page stays.
  expectDrops((c) => c.committed([settlement(300, { recipient: A, token: address(0x71) })]), ['all', 'recipientA', 'addressA', 'fromBlock200', 'fromTime1900'])
  expectDrops((c) => c.committed([]), [])
})
