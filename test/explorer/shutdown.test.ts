/**
 * Stopping the explorer while clients hold kept-alive connections: later requests on them are refused
 * cleanly (never served from a closed store), and a new explorer on the same data directory starts and
 * serves what was indexed. (Not on the same port while the old connections linger: this uWS build
 * cannot bind a port that established connections still use.)
 */
import assert from 'node:assert/strict'
import { rmSync } from 'node:fs'
import { after, before, test } from 'node:test'
import { Agent, request } from 'undici'
import { startTestExplorer, tempDataDir, waitForHead, sendSettlements, startLocalChain, type LocalChain } from '../../src/devnet/testing/index.js'

let chain: LocalChain
const dataDir = tempDataDir()

before(async () => {
  chain = await startLocalChain()
  await sendSettlements(chain, 5)
})

after(async () => {
  await chain?.stop()
  rmSync(dataDir, { recursive: true, force: true })
})

test('requests on kept-alive connections after stop are refused, and a restart serves again', async () => {
  const first = await startTestExplorer(chain, { DATA_DIR: dataDir })
  await waitForHead(chain, first.url)
  const agent = new Agent({ connections: 1, pipelining: 1, keepAliveTimeout: 60_000 })
  const before = await request(`${first.url}/events`, { dispatcher: agent })
  assert.equal(before.statusCode, 200)
  assert.equal(((await before.body.json()) as { total: number }).total, 5)

  await first.stop()
  const late = await request(`${first.url}/events`, { dispatcher: agent })
  assert.equal(late.statusCode, 503)
  assert.equal(late.headers.connection, 'close')
  assert.equal(((await late.body.json()) as { status: number }).status, 503)
  await agent.close()

  const second = await startTestExplorer(chain, { DATA_DIR: dataDir })
  try {
    assert.equal((await second.get('/events')).body.total, 5)
  } finally {
    await second.stop()
  }
})
