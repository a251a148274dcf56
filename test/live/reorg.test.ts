/**
 * A chain reorganisation on anvil (evm_snapshot, payments, evm_revert, a new branch) with
 * CONFIRMATION_BLOCKS 0: live subscribers get REMOVED (WebSocket) and `event: removed` (SSE) for each
 * settlement taken back, newest first, then the new branch's settlements; a resume from the REMOVED
 * cursor yields the new branch.
 */
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { Settlement } from '../../src/types/settlement.js'
import { key, settlementsOnChain, waitFor, waitForHead } from '../helpers/explorer.js'
import { sendSettlements } from '../helpers/local-chain.js'
import { openSse, subscribe, useLiveExplorer } from './live-client.js'

const live = useLiveExplorer({ settlements: 2, env: { CONFIRMATION_BLOCKS: '0' } })

async function rpc<T>(method: string, params: unknown[] = []): Promise<T> {
  const response = await fetch(live.chain.rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  })
  const body = (await response.json()) as { result: T; error?: { message: string } }
  if (body.error) throw new Error(`${method}: ${body.error.message}`)
  return body.result
}

describe('a reorg seen by live subscribers', () => {
  test('REMOVED for every settlement taken back, newest first, then the new branch', async () => {
    const ws = await live.client()
    await subscribe(ws, { id: 'all' })
    const sse = await openSse(live.explorer.url)
    const before = (await settlementsOnChain(live.chain)).map(key)

    const snapshot = await rpc<string>('evm_snapshot')
    await sendSettlements(live.chain, 3)
    const doomed = (await settlementsOnChain(live.chain)).filter((e) => !before.includes(key(e)))
    assert.equal(doomed.length, 3)
    await ws.waitForSettlements(3, 'all')
    await waitFor('SSE to see the doomed settlements', () => sse.settlements().length >= 3)

    assert.equal(await rpc<boolean>('evm_revert', [snapshot]), true)
    const removed = await waitFor('three REMOVED', () => {
      const found = ws.messages.filter((m) => m.type === 'REMOVED')
      return found.length >= 3 ? found : undefined
    })
    assert.deepEqual(removed.map((m) => m.data), [...doomed].reverse())
    for (const m of removed) assert.equal(m.subscription, 'all')
    await waitFor('SSE removed events', () => sse.frames.filter((f) => f.event === 'removed').length >= 3)
    assert.deepEqual(sse.frames.filter((f) => f.event === 'removed').map((f) => JSON.parse(f.data!)), [...doomed].reverse())
    const { body } = await live.explorer.get('/events?limit=100')
    assert.equal(body.events.some((e: Settlement) => doomed.some((d) => d.txHash === e.txHash)), false)

    // The new branch: the same block numbers, other settlements.
    await sendSettlements(live.chain, 2)
    await waitForHead(live.chain, live.explorer.url)
    const branch = (await settlementsOnChain(live.chain)).filter((e) => !before.includes(key(e)))
    assert.equal(branch.length, 2)
    const afterRemoval = await waitFor('the new branch live', () => {
      const i = ws.messages.map((m) => m.type).lastIndexOf('REMOVED')
      const next = ws.messages.slice(i + 1).filter((m) => m.type === 'SETTLEMENT')
      return next.length >= 2 ? next : undefined
    })
    assert.deepEqual(afterRemoval.map((m) => m.data), branch)

    // The last REMOVED cursor points before the oldest removed settlement: resuming there yields the branch.
    const resumed = await live.client()
    await subscribe(resumed, { id: 'r', since: removed.at(-1)!.cursor })
    await resumed.waitForSettlements(2, 'r')
    assert.deepEqual(resumed.settlements('r').map((m) => m.data), branch)
    sse.close()
  })
})
