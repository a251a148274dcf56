/**
 * A provider's key in RPC_URL (its path and query) never reaches the logs: `npm run submitter` started
 * with such a URL, whose node then fails (503 to every call), logs its failures with the node's host and
 * port only. viem's errors name the whole URL (`URL: …`); the logger redacts it (issue 38).
 */
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { after, before, test } from 'node:test'
import type { ChildProcess } from 'node:child_process'
import type { Database } from '../../src/processor/db/open-database.js'
import { waitFor, spawnSubmitter, startChainAndDatabase, startRpcProxy, type RpcProxy } from '../../src/devnet/testing/index.js'
import type { LocalChain } from '../../src/devnet/testing/index.js'

let chain: LocalChain
let db: Database
let proxy: RpcProxy
let child: ChildProcess | undefined

before(async () => {
  ;({ chain, db } = await startChainAndDatabase())
  proxy = await startRpcProxy(chain.rpcUrl)
})
after(async () => {
  if (child && child.exitCode === null) {
    child.kill('SIGKILL')
    await once(child, 'exit')
  }
  await proxy?.stop()
  await db?.close()
  await chain?.stop()
})

test('a submitter whose node fails logs the failure without the key in RPC_URL', async () => {
  let active = false
  child = spawnSubmitter(chain, db, () => (active = true), {
    RPC_URL: `${proxy.url}/v2/PATHSECRET0123456789?apikey=QUERYSECRET`,
    LOG_LEVEL: 'debug',
  })
  let logged = ''
  child.stderr!.on('data', (chunk: Buffer) => (logged += chunk.toString()))
  await waitFor('the submitter to become active', () => active)

  proxy.down = true
  const failures = await waitFor('the submitter to log its node failing', () => {
    const lines = logged.split('\n').filter((line) => line.includes('Status: 503'))
    return lines.length > 0 && lines
  })
  assert.doesNotMatch(logged, /PATHSECRET|QUERYSECRET|apikey/)
  // The node is still named, by scheme, host and port.
  assert.ok(failures.some((line) => line.includes(`URL: ${proxy.url}/…`)), failures.join('\n'))
})
