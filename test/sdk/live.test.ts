/**
 * The SDK's live half against a real explorer on anvil: handlers with and without filters, offSettlement,
 * `since`, REMOVED after a reorg, and server-side disconnects in the middle of traffic (the explorer
 * process killed, settlements sent while it is down, then restarted on the same port and data directory)
 * after which every handler has seen every matching settlement exactly once, in chain order.
 */
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { after, before, describe, test } from 'node:test'
import { findFreePort } from '../../src/platform/net/find-free-port.js'
import { ExplorerClient, type Settlement } from '../../src/sdk/index.js'
import { explorerEnv, key, settlementsOnChain, startExplorerProcess, startTestExplorer, tempDataDir, waitFor, waitForHead, type TestExplorer, chainRpc, sendSettlements, startLocalChain, type LocalChain } from '../../src/devnet/testing/index.js'
import { recorder, since, startTraffic, watchOutages } from './live-fixture.js'
import { startTcpProxy } from '../helpers/tcp-proxy.js'

let chain: LocalChain
let explorer: TestExplorer
const errors: Error[] = []

before(async () => {
  chain = await startLocalChain()
  await sendSettlements(chain, 4)
  explorer = await startTestExplorer(chain)
  await waitForHead(chain, explorer.url)
})

after(async () => {
  await explorer?.stop()
  await chain?.stop()
})

const newClient = (baseUrl = explorer.url) =>
  new ExplorerClient({ baseUrl, reconnect: { initialDelayMs: 50, maxDelayMs: 500 }, onError: (error) => errors.push(error) })

const rpc = (method: string, params: unknown[]) => chainRpc(chain.rpcUrl, method, params)

describe('ExplorerClient live', () => {
  test('connect, handlers with and without a filter, offSettlement, disconnect', async () => {
    const client = newClient()
    const all = recorder()
    const byRecipient = recorder()
    const recipient = chain.deployment.recipients[0]!
    const allSub = client.onSettlement(all.handler)
    await client.connect()
    assert.equal(client.connected, true)
    assert.equal(client.wsUrl, `${explorer.url.replace('http', 'ws')}/stream`)
    const recipientSub = client.onSettlement({ recipient }, byRecipient.handler)
    await Promise.all([allSub.ready, recipientSub.ready])

    const mark = await settlementsOnChain(chain)
    await sendSettlements(chain, 6)
    const fresh = since(await settlementsOnChain(chain), mark)
    await waitFor('all six settlements live', () => all.events.length >= 6)
    assert.deepEqual(all.events, fresh)
    await waitFor('the recipient handler', () => byRecipient.events.length >= fresh.filter((e) => e.recipient === recipient.toLowerCase()).length)
    assert.deepEqual(byRecipient.events, fresh.filter((e) => e.recipient === recipient.toLowerCase()))
    assert.equal(allSub.cursor, all.cursors.at(-1))

    assert.equal(client.offSettlement(byRecipient.handler), true)
    assert.equal(client.offSettlement(byRecipient.handler), false)
    const seenByRecipient = byRecipient.events.length
    await sendSettlements(chain, 3)
    await waitFor('three more on the remaining handler', () => all.events.length >= 9)
    assert.equal(byRecipient.events.length, seenByRecipient)

    await client.disconnect()
    assert.equal(client.connected, false)
  })

  test('a subscription starting from a cursor replays what came after it', async () => {
    const onChain = await settlementsOnChain(chain)
    const page = await newClient().getEvents({ order: 'asc', limit: 5 })
    const client = newClient()
    const replay = recorder()
    await client.connect()
    await client.onSettlement({}, replay.handler, { since: page.nextCursor! }).ready
    await waitFor('the replay', () => replay.events.length >= onChain.length - 5)
    assert.deepEqual(replay.events, onChain.slice(5))
    await client.disconnect()
  })

  test('server-side disconnects mid-traffic (kill -9, then a graceful stop): every handler sees every settlement exactly once', async () => {
    const port = await findFreePort()
    const env = explorerEnv(chain, { DATA_DIR: tempDataDir(), EXPLORER_PORT: String(port) })
    const baseUrl = `http://127.0.0.1:${port}`
    let server = await startExplorerProcess(env, baseUrl)
    try {
      // A fresh data directory: settlements it backfills after the handlers start would count as new.
      await waitForHead(chain, baseUrl)
      const { client, all, verify } = await watchOutages(chain, newClient(baseUrl), errors)
      const traffic = startTraffic(chain, { acquirerEvery: 1_000 })
      await waitFor('some settlements before the first outage', () => all.events.length >= 8)
      server.kill('SIGKILL')
      await once(server, 'exit')
      // From here until the restart, these reach the chain but not the client.
      traffic.options = { acquirerEvery: 1 }
      await waitFor('the client to notice', () => !client.connected)
      await traffic.batches(2)
      server = await startExplorerProcess(env, baseUrl)
      await waitFor('the client to reconnect', () => client.connected)

      traffic.options = { acquirerEvery: 2 }
      const beforeSecond = all.events.length
      await waitFor('more settlements before the second outage', () => all.events.length >= beforeSecond + 8, 60_000)
      server.kill('SIGTERM')
      await once(server, 'exit')
      await traffic.batches(2)
      server = await startExplorerProcess(env, baseUrl)
      await traffic.batches(1)
      await traffic.stop()
      await verify()
    } finally {
      server.kill('SIGKILL')
    }
  })

  test('a network cut while the explorer keeps indexing: resumed from each cursor, nothing lost or repeated', async () => {
    const proxy = await startTcpProxy(explorer.port)
    try {
      const { all, verify } = await watchOutages(chain, newClient(proxy.url), errors)
      const traffic = startTraffic(chain, { acquirerEvery: 1_000 })
      await waitFor('some settlements before the cut', () => all.events.length >= 8)
      proxy.cut()
      traffic.options = { acquirerEvery: 1 }
      await traffic.batches(2)
      await waitForHead(chain, explorer.url)
      proxy.restore()
      traffic.options = { acquirerEvery: 2 }
      await traffic.batches(1)
      await traffic.stop()
      await verify()
    } finally {
      await proxy.stop()
    }
  })

  test('connect() rejects when nothing listens', async () => {
    const client = new ExplorerClient({ baseUrl: 'http://127.0.0.1:1' })
    await assert.rejects(client.connect(), /could not open ws:\/\/127\.0\.0\.1:1\/stream/)
  })
  // Last: a reorg leaves the chain's pending transactions in a state the other tests need not know about.
  test('a reorg that takes back a delivered settlement reaches onRemoved', async () => {
    const client = newClient()
    const live = recorder()
    const removed: Settlement[] = []
    await client.connect()
    await client.onSettlement({}, live.handler, { onRemoved: (event) => removed.push(event) }).ready
    await sendSettlements(chain, 2)
    await waitFor('two live settlements', () => live.events.length >= 2)
    await waitForHead(chain, explorer.url)
    const onChain = await settlementsOnChain(chain)
    const newestBlock = onChain.at(-1)!.blockNumber
    const inNewestBlock = live.events.filter((e) => e.blockNumber === newestBlock)
    assert.ok(inNewestBlock.length > 0)
    // Replaces the newest block with an empty one at the same height.
    await rpc('anvil_reorg', [1, []])
    await waitFor('the removal', () => removed.length >= inNewestBlock.length)
    assert.deepEqual(removed.map(key).sort(), inNewestBlock.map(key).sort())
    await client.disconnect()
  })
})
