/**
 * kill -9 at arbitrary moments while settlements keep arriving: after each restart the explorer
 * holds exactly the chain's settlements, none lost and none twice, with totals and stats that agree.
 */
import assert from 'node:assert/strict'
import type { ChildProcess } from 'node:child_process'
import { rmSync } from 'node:fs'
import { after, before, test } from 'node:test'
import { explorerEnv, getJson, key, pageThrough, settlementsOnChain, startExplorerProcessOnAnyPort, tempDataDir, waitForHead, sendSettlements, startLocalChain, type LocalChain } from '../../src/devnet/testing/index.js'

let chain: LocalChain
let child: ChildProcess | undefined
const dataDir = tempDataDir()

before(async () => {
  chain = await startLocalChain()
})

after(async () => {
  child?.kill('SIGKILL')
  await chain?.stop()
  rmSync(dataDir, { recursive: true, force: true })
})

test('kill -9 during indexing loses and duplicates nothing', async () => {
  const env = explorerEnv(chain, { DATA_DIR: dataDir, POLL_INTERVAL_MS: '10' })
  // Each start on any free port, the port it got read from its log: none picked up front.
  let url = ''
  const start = async () => {
    ;({ child, url } = await startExplorerProcessOnAnyPort(env))
  }

  for (let round = 0; round < 4; round++) {
    await start()
    // Settlements land while the explorer indexes; the kill comes at a different moment each round.
    const sending = sendSettlements(chain, 15)
    await new Promise((resolve) => setTimeout(resolve, 20 + round * 60))
    child!.kill('SIGKILL')
    await new Promise((resolve) => child!.once('exit', resolve))
    await sending
  }

  await start()
  await waitForHead(chain, url)
  const onChain = await settlementsOnChain(chain)
  assert.equal(onChain.length, 60)
  const indexed = await pageThrough(url, { order: 'asc', limit: '100' })
  assert.equal(new Set(indexed.events.map(key)).size, indexed.events.length, 'no settlement twice')
  assert.deepEqual(indexed.events, onChain)
  assert.equal(indexed.totals[0], 60)
  assert.equal((await getJson(url, '/stats')).body.totalSettlements, 60)
  child!.kill('SIGKILL')
})
