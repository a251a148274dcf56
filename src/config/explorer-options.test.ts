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
