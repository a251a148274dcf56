import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { Store } from '../store/open-store.js'
import { SAMPLE, SettlementJsonCache, WINDOW } from './settlement-json-cache.js'

/** A store whose only content is its generation. */
function storeAt(generation: { value: number }): Store {
  return { meta: { get: (name: string) => (name === 'generation' ? generation.value : undefined) } } as unknown as Store
}

const read = (cache: SettlementJsonCache, key: number) => {
  const out = Buffer.alloc(4096)
  const end = cache.copyInto(key, out, 10)
  return end < 0 ? undefined : out.toString('latin1', 10, end)
}

test('keeps what it was given by position, and nothing it cannot key', () => {
  const cache = new SettlementJsonCache()
  cache.sync(storeAt({ value: 0 }))
  const key = cache.key(1234, 5)
  assert.equal(read(cache, key), undefined)
  cache.remember(key, Buffer.from('xx{"a":1}yy'), 2, 9)
  assert.equal(read(cache, key), '{"a":1}')
  assert.equal(read(cache, cache.key(1234, 6)), undefined)
  assert.equal(cache.key(2 ** 33, 0), -1)
  assert.equal(cache.key(1, 2 ** 20), -1)
  cache.remember(-1, Buffer.from('{}'), 0, 2)
  assert.equal(read(cache, -1), undefined)
  assert.equal(cache.copyInto(key, Buffer.alloc(12), 10), -1, 'does not fit: left alone')
})

test('a new generation (a rollback) empties it', () => {
  const generation = { value: 3 }
  const cache = new SettlementJsonCache()
  cache.sync(storeAt(generation))
  cache.remember(cache.key(7, 0), Buffer.from('{"old":true}'), 0, 12)
  cache.sync(storeAt(generation))
  assert.equal(read(cache, cache.key(7, 0)), '{"old":true}')
  generation.value++
  cache.sync(storeAt(generation))
  assert.equal(read(cache, cache.key(7, 0)), undefined)
})

test('past its arena the oldest entries go, the newest stay, and every answer is its own', () => {
  const cache = new SettlementJsonCache()
  cache.sync(storeAt({ value: 0 }))
  const body = (i: number) => Buffer.from(`{"settlement":${i},"pad":"${'p'.repeat(1000)}"}`)
  const count = 40_000 // about 40 MB through a 32 MiB arena
  for (let i = 0; i < count; i++) {
    const b = body(i)
    cache.remember(cache.key(i, 0), b, 0, b.length)
  }
  assert.equal(read(cache, cache.key(0, 0)), undefined)
  for (const i of [count - 1, count - 1000, count - 20_000]) assert.equal(read(cache, cache.key(i, 0)), body(i).toString('latin1'))
  let kept = 0
  for (let i = 0; i < count; i++) {
    const text = read(cache, cache.key(i, 0))
    if (text === undefined) continue
    kept++
    assert.equal(text, body(i).toString('latin1'))
  }
  assert.ok(kept > 25_000 && kept < 34_000, `${kept} kept`)
})

test('while lookups almost never hit, one miss in SAMPLE is remembered; once they hit, every miss is', () => {
  const cache = new SettlementJsonCache()
  cache.sync(storeAt({ value: 0 }))
  const json = Buffer.from('{"x":1}')
  /** As a page writer does: look up, and remember on a miss. */
  const ask = (block: number) => {
    const key = cache.key(block, 0)
    if (read(cache, key) === undefined) cache.remember(key, json, 0, json.length)
  }
  const keptOf = (blocks: number[]) => blocks.filter((b) => cache.copyInto(cache.key(b, 0), Buffer.alloc(64), 0) >= 0).length
  // A first window of misses, each remembered (nothing is known yet about the hits).
  const first = Array.from({ length: WINDOW }, (_, i) => i)
  first.forEach(ask)
  // (A few keys share a slot with a later one: the table is direct-mapped.)
  assert.ok(keptOf(first.slice(0, 100)) >= 95)
  // The window had no hit: of the next misses, one in SAMPLE is kept.
  const spread = Array.from({ length: 800 }, (_, i) => 100_000 + i)
  spread.forEach(ask)
  const kept = keptOf(spread)
  assert.ok(kept <= 800 / SAMPLE && kept >= 800 / SAMPLE - 5, `${kept} of 800 kept`)
  // A window of hits (the settlements kept, asked again), then every miss is remembered again.
  for (let i = 0; i < WINDOW; i++) ask(first[i % 100]!)
  const hot = Array.from({ length: 50 }, (_, i) => 200_000 + i)
  hot.forEach(ask)
  assert.ok(keptOf(hot) >= 48)
})
