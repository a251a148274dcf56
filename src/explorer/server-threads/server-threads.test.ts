import assert from 'node:assert/strict'
import { test } from 'node:test'
import { explorerOptionsFromEnv } from '../../config/index.js'
import { perThreadOptions } from './server-threads.js'

const env = { CHAIN_ID: '31337', RPC_URL: 'http://127.0.0.1:8545', SETTLEMENT_CONTRACT: `0x${'11'.repeat(20)}` }

test('the total budget of unsent live bytes is split among the server threads, never below one connection’s', () => {
  const one = explorerOptionsFromEnv(env)
  assert.equal(perThreadOptions(one), one)
  const four = perThreadOptions(explorerOptionsFromEnv({ ...env, SERVER_THREADS: '4', LIVE_MAX_TOTAL_BUFFERED_BYTES: String(64 << 20) }))
  assert.equal(four.live.maxTotalBufferedBytes, 16 << 20)
  assert.equal(four.live.maxConnections, one.live.maxConnections)
  const tight = perThreadOptions(explorerOptionsFromEnv({ ...env, SERVER_THREADS: '8', LIVE_MAX_BUFFERED_BYTES: String(4 << 20), LIVE_MAX_TOTAL_BUFFERED_BYTES: String(8 << 20) }))
  assert.equal(tight.live.maxTotalBufferedBytes, 4 << 20)
})
