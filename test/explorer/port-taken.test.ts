/**
 * uWebSockets.js listens with SO_REUSEPORT: a second explorer started on the port of a first one used to
 * start without a word and take part of its connections (the kernel spreads them over both). It must
 * refuse to start instead; only the server threads of one explorer share a port.
 */
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { startLocalChain, startTestExplorer, waitForHead, type LocalChain, type TestExplorer } from '../../src/devnet/testing/index.js'

let chain: LocalChain
let first: TestExplorer

const portOf = (url: string) => new URL(url).port

before(async () => {
  chain = await startLocalChain()
  // On a port given to it, as in production: this uWS build sets SO_REUSEPORT on a given port only, so a
  // first explorer on port 0 would refuse the second even without the check. The port is one the kernel
  // handed out a moment ago (to an explorer on port 0, stopped).
  const probe = await startTestExplorer(chain)
  const port = portOf(probe.url)
  await probe.stop()
  first = await startTestExplorer(chain, { EXPLORER_PORT: port })
  await waitForHead(chain, first.url)
})

after(async () => {
  await first?.stop()
  await chain?.stop()
})

test('a second explorer on the port of a running one fails to start, naming EXPLORER_PORT', async () => {
  const port = portOf(first.url)
  await assert.rejects(startTestExplorer(chain, { EXPLORER_PORT: port }), new RegExp(`^ConfigError: EXPLORER_PORT ${port} on 127\\.0\\.0\\.1 is not available \\(another server listens on it\\)`))
  assert.equal((await first.get('/')).status, 200, 'the first one still answers')
})

test('an explorer with server threads cannot join the port of another explorer either', async () => {
  const port = portOf(first.url)
  await assert.rejects(startTestExplorer(chain, { EXPLORER_PORT: port, SERVER_THREADS: '2' }), /EXPLORER_PORT .* is not available/)
})

test('a second explorer on a port of its own starts beside the first', async () => {
  const second = await startTestExplorer(chain)
  try {
    assert.notEqual(portOf(second.url), portOf(first.url))
    await waitForHead(chain, second.url)
  } finally {
    await second.stop()
  }
})
