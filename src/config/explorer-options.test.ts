import assert from 'node:assert/strict'
import { availableParallelism } from 'node:os'
import { test } from 'node:test'
import { explorerOptionsFromEnv } from './explorer-options.js'

const env = { CHAIN_ID: '31337', RPC_URL: 'http://127.0.0.1:8545', SETTLEMENT_CONTRACT: `0x${'11'.repeat(20)}` }

test('QUERY_INLINE: cheap by default, none on request, anything else refused by name', () => {
  assert.equal(explorerOptionsFromEnv(env).queryInline, 'cheap')
  assert.equal(explorerOptionsFromEnv({ ...env, QUERY_INLINE: 'none' }).queryInline, 'none')
  assert.throws(() => explorerOptionsFromEnv({ ...env, QUERY_INLINE: 'all' }), /QUERY_INLINE/)
})

test('SERVER_THREADS: the main thread alone by default, up to 64 or `auto` (the cores), refused by name otherwise', () => {
  assert.equal(explorerOptionsFromEnv(env).serverThreads, 1)
  assert.equal(explorerOptionsFromEnv({ ...env, SERVER_THREADS: '4' }).serverThreads, 4)
  assert.equal(explorerOptionsFromEnv({ ...env, SERVER_THREADS: 'auto' }).serverThreads, Math.min(availableParallelism(), 64))
  for (const bad of ['0', '65', 'two']) assert.throws(() => explorerOptionsFromEnv({ ...env, SERVER_THREADS: bad }), /SERVER_THREADS/)
})

test('the request caps: exports, walks and the query queue have their documented defaults, and bad values are refused by name', () => {
  const o = explorerOptionsFromEnv(env)
  assert.deepEqual(o.exports, { maxConcurrent: 32, maxPerAddress: 2, maxSeconds: 900 })
  assert.equal(o.eventsMaxWalk, 100_000)
  assert.equal(o.queryMaxQueue, 64)
  const set = explorerOptionsFromEnv({ ...env, EXPORT_MAX_CONCURRENT: '5', EXPORT_MAX_PER_ADDRESS: '1', EXPORT_MAX_SECONDS: '60', EVENTS_MAX_WALK: '1000', QUERY_MAX_QUEUE: '8' })
  assert.deepEqual([set.exports.maxConcurrent, set.exports.maxPerAddress, set.exports.maxSeconds, set.eventsMaxWalk, set.queryMaxQueue], [5, 1, 60, 1000, 8])
  for (const name of ['EXPORT_MAX_CONCURRENT', 'EXPORT_MAX_PER_ADDRESS', 'EXPORT_MAX_SECONDS', 'EVENTS_MAX_WALK', 'QUERY_MAX_QUEUE']) {
    assert.throws(() => explorerOptionsFromEnv({ ...env, [name]: '0' }), new RegExp(name))
  }
})
