/**
 * What the explorer does when the chain misbehaves: a reorganisation replacing indexed blocks, a
 * slow node during backfill (/ready 503 with the lag), and a node that goes away and comes back
 * (queries keep being served; indexing resumes on its own).
 */
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { createTestClient, http } from 'viem'
import { foundry } from 'viem/chains'
import { key, pageThrough, settlementsOnChain, startTestExplorer, waitFor, waitForHead, type TestExplorer, sendSettlements, startLocalChain, type LocalChain, startRpcProxy, type RpcProxy } from '../../src/devnet/testing/index.js'

describe('chain reorganisation', () => {
  let chain: LocalChain
  let explorer: TestExplorer

  before(async () => {
    chain = await startLocalChain()
    explorer = await startTestExplorer(chain, { CONFIRMATION_BLOCKS: '0' })
  })
  after(async () => {
    await explorer?.stop()
    await chain?.stop()
  })

  test('replaced blocks are rolled back to the common ancestor and the new branch is indexed', async () => {
    const testClient = createTestClient({ chain: foundry, mode: 'anvil', transport: http(chain.rpcUrl) })
    await sendSettlements(chain, 10)
    const snapshot = await testClient.snapshot()
    await sendSettlements(chain, 12)
    await waitForHead(chain, explorer.url)
    const before = await pageThrough(explorer.url, { order: 'asc', limit: '100' })
    assert.equal(before.events.length, 22)

    // Revert to the snapshot and build a different, longer branch in its place.
    await testClient.revert({ id: snapshot })
    await testClient.mine({ blocks: 3 })
    await sendSettlements(chain, 5)
    await testClient.mine({ blocks: 30 })
    const onChain = await settlementsOnChain(chain)
    assert.equal(onChain.length, 15)

    await waitFor('the explorer to match the new branch', async () => (await explorer.get('/events?limit=1')).body.total === 15)
    await waitForHead(chain, explorer.url)
    const after = await pageThrough(explorer.url, { order: 'asc', limit: '100' })
    assert.deepEqual(after.events, onChain)
    const stats = (await explorer.get('/stats')).body
    assert.equal(stats.totalSettlements, 15)
    const volume = onChain.reduce((sum, e) => sum + BigInt(e.amount), 0n)
    assert.equal(Object.values(stats.totalVolume as Record<string, string>).reduce((sum, v) => sum + BigInt(v), 0n), volume)
    const metrics = await (await fetch(`${explorer.url}/metrics`)).text()
    assert.match(metrics, /^explorer_reorgs_total [1-9]\d*$/m)
    // The removed settlements are gone from every index, not only from the list.
    for (const gone of before.events.filter((e) => !onChain.some((o) => key(o) === key(e) && o.txHash === e.txHash))) {
      assert.equal((await explorer.get(`/events/${gone.txHash}`)).status, 404)
    }
  })

  test('a reorg at the same height (no new block) is noticed too', async () => {
    const testClient = createTestClient({ chain: foundry, mode: 'anvil', transport: http(chain.rpcUrl) })
    await sendSettlements(chain, 2)
    await waitForHead(chain, explorer.url)
    const before = (await explorer.get('/events?limit=1')).body.total as number
    // anvil_reorg replaces the last block with an empty one at the same height.
    await testClient.request({ method: 'anvil_reorg' as never, params: [1, []] as never })
    const onChain = await settlementsOnChain(chain)
    assert.ok(onChain.length < before)
    await waitFor('the explorer to drop the replaced block', async () => (await explorer.get('/events?limit=1')).body.total === onChain.length)
    assert.deepEqual((await pageThrough(explorer.url, { order: 'asc', limit: '100' })).events, onChain)
  })
})

describe('a slow or failing node', () => {
  let chain: LocalChain
  let proxy: RpcProxy
  let explorer: TestExplorer

  before(async () => {
    chain = await startLocalChain()
    await sendSettlements(chain, 8)
    const testClient = createTestClient({ chain: foundry, mode: 'anvil', transport: http(chain.rpcUrl) })
    await testClient.mine({ blocks: 150 })
    await sendSettlements(chain, 8)
    proxy = await startRpcProxy(chain.rpcUrl)
    proxy.delayMs = 40
  })
  after(async () => {
    await explorer?.stop()
    await proxy?.stop()
    await chain?.stop()
  })

  test('/ready is 503 with the lag while backfilling, then 200 once caught up', async () => {
    explorer = await startTestExplorer(chain, { RPC_URL: proxy.url })
    const syncing = await waitFor('a 503 with a positive lag', async () => {
      const ready = await explorer.get('/ready')
      return ready.status === 503 && ready.body.lag > 2 ? ready.body : undefined
    })
    assert.equal(syncing.status, 'syncing')
    proxy.delayMs = 0
    await waitForHead(chain, explorer.url)
    await waitFor('/ready 200', async () => (await explorer.get('/ready')).status === 200)
    assert.equal((await explorer.get('/events')).body.total, 16)
  })

  test('an unreachable node never stops the API; indexing resumes on its own', async () => {
    proxy.down = true
    const notReady = await waitFor('/ready to report the failing node', async () => {
      const ready = await explorer.get('/ready')
      return ready.status === 503 ? ready.body : undefined
    })
    assert.equal(typeof notReady.lastError, 'string')
    assert.equal((await explorer.get('/events?limit=5')).status, 200)
    assert.equal((await explorer.get('/stats')).body.totalSettlements, 16)
    await sendSettlements(chain, 4)
    proxy.down = false
    await waitForHead(chain, explorer.url)
    await waitFor('/ready 200 again', async () => (await explorer.get('/ready')).status === 200)
    assert.deepEqual((await pageThrough(explorer.url, { order: 'asc', limit: '100' })).events, await settlementsOnChain(chain))
  })
})
