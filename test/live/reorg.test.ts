/**
 * A chain reorganisation on anvil (evm_snapshot, payments, evm_revert, a new branch) with
 * CONFIRMATION_BLOCKS 0: live subscribers get REMOVED (WebSocket) and `event: removed` (SSE) for each
 * settlement taken back, newest first, then the new branch's settlements; a resume from the REMOVED
 * cursor yields the new branch. An `address` subscriber is told once per settlement involving the
 * address (a self-payment once), and REST totals by address drop with the rollback.
 */
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { privateKeyToAccount } from 'viem/accounts'
import type { Hex, Settlement } from '../../src/wire/settlement.js'
import { key, settlementsOnChain, waitFor, waitForHead, chainRpc, sendSettlements } from '../../src/devnet/testing/index.js'
import { openSse, subscribe, useLiveExplorer } from './live-client.js'

const live = useLiveExplorer({ settlements: 2, env: { CONFIRMATION_BLOCKS: '0' } })

const rpc = <T>(method: string, params: unknown[] = []) => chainRpc<T>(live.chain.rpcUrl, method, params)

describe('a reorg seen by live subscribers', () => {
  test('REMOVED for every settlement taken back, newest first, then the new branch', async () => {
    // Payment i is paid by payer i: the doomed ones are A paying itself, B paying A, and payer 2 paying a recipient.
    const address = privateKeyToAccount(live.chain.deployment.payerKeys[0]!).address.toLowerCase() as Hex
    const involves = (e: Settlement) => e.payer === address || e.recipient === address
    const ws = await live.client()
    await subscribe(ws, { id: 'all' })
    await subscribe(ws, { id: 'address', filter: { address } })
    const sse = await openSse(live.explorer.url)
    const before = (await settlementsOnChain(live.chain)).map(key)
    const totalBefore = (await live.explorer.get(`/events?address=${address}`)).body.total as number

    const snapshot = await rpc<string>('evm_snapshot')
    await sendSettlements(live.chain, 3, { recipient: (i, payer) => (i === 0 ? payer : i === 1 ? address : live.chain.deployment.recipients[0]!) })
    const doomed = (await settlementsOnChain(live.chain)).filter((e) => !before.includes(key(e)))
    assert.equal(doomed.length, 3)
    assert.equal(doomed.filter(involves).length, 2)
    await ws.waitForSettlements(3, 'all')
    assert.equal((await live.explorer.get(`/events?address=${address}`)).body.total, totalBefore + 2)
    await waitFor('SSE to see the doomed settlements', () => sse.settlements().length >= 3)

    assert.equal(await rpc<boolean>('evm_revert', [snapshot]), true)
    const removed = await waitFor('three REMOVED', () => {
      const found = ws.messages.filter((m) => m.type === 'REMOVED' && m.subscription === 'all')
      return found.length >= 3 ? found : undefined
    })
    assert.deepEqual(removed.map((m) => m.data), [...doomed].reverse())

    await waitFor('SSE removed events', () => sse.frames.filter((f) => f.event === 'removed').length >= 3)
    assert.deepEqual(sse.frames.filter((f) => f.event === 'removed').map((f) => JSON.parse(f.data!)), [...doomed].reverse())
    const { body } = await live.explorer.get('/events?limit=100')
    assert.equal(body.events.some((e: Settlement) => doomed.some((d) => d.txHash === e.txHash)), false)
    const byAddressAfter = (await live.explorer.get(`/events?address=${address}&limit=100`)).body
    assert.equal(byAddressAfter.total, totalBefore)
    assert.equal(byAddressAfter.events.some((e: Settlement) => doomed.some((d) => d.txHash === e.txHash)), false)

    // The new branch: the same block numbers, other settlements.
    await sendSettlements(live.chain, 2)
    await waitForHead(live.chain, live.explorer.url)
    const branch = (await settlementsOnChain(live.chain)).filter((e) => !before.includes(key(e)))
    assert.equal(branch.length, 2)
    const afterRemoval = await waitFor('the new branch live', () => {
      const i = ws.messages.map((m) => m.type).lastIndexOf('REMOVED')
      const next = ws.messages.slice(i + 1).filter((m) => m.type === 'SETTLEMENT' && m.subscription === 'all')
      return next.length >= 2 ? next : undefined
    })
    assert.deepEqual(afterRemoval.map((m) => m.data), branch)

    // The address subscriber: each doomed settlement involving the address once, its removal once, then
    // the branch. Its messages arrive in publish order, so once the branch is there nothing is missing.
    const byAddress = [
      ...doomed.filter(involves).map((e) => ['SETTLEMENT', key(e)]),
      ...[...doomed].reverse().filter(involves).map((e) => ['REMOVED', key(e)]),
      ...branch.filter(involves).map((e) => ['SETTLEMENT', key(e)]),
    ]
    const got = await waitFor('the address subscription to see the branch', () => {
      const mine = ws.messages.filter((m) => m.subscription === 'address')
      return mine.length >= byAddress.length ? mine : undefined
    })
    assert.deepEqual(got.map((m) => [m.type, key(m.data)]), byAddress)

    // The last REMOVED cursor points before the oldest removed settlement: resuming there yields the branch.
    const resumed = await live.client()
    await subscribe(resumed, { id: 'r', since: removed.at(-1)!.cursor })
    await resumed.waitForSettlements(2, 'r')
    assert.deepEqual(resumed.settlements('r').map((m) => m.data), branch)
    sse.close()
  })
})
