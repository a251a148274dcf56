/**
 * WalletClient.pay and a DROPPED verdict, against a real gateway, a real submitter (reaching anvil through
 * an RPC proxy that hides receipts, as a node whose receipts lag its state does) and a real PostgreSQL:
 * a DROPPED failure still watched is shown to `onStatus` but does not end `pay`, which resolves SUCCESS
 * once the receipt shows up, or with the DROPPED failure once the submitter announces it final.
 */
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { createTestClient, http } from 'viem'
import type { SubmissionStatusPush } from '../../src/wire/gateway-messages.js'
import { WalletClient, type FinalStatus } from '../../src/sdk/wallet/wallet-client.js'
import type { RunningSubmitter } from '../../src/processor/submitter/start-submitter.js'
import { waitFor, startTestSubmitter, startRpcProxy, type RpcProxy } from '../../src/devnet/testing/index.js'
import { startGatewayFixture, type GatewayFixture } from './fixture.js'

let fx: GatewayFixture
let proxy: RpcProxy
let submitter: RunningSubmitter

before(async () => {
  fx = await startGatewayFixture()
  proxy = await startRpcProxy(fx.chain.rpcUrl)
  submitter = await startTestSubmitter(fx.chain, fx.db, { RPC_URL: proxy.url, SUBMITTER_DROPPED_AFTER_BLOCKS: '1', SUBMITTER_DROPPED_WATCH_BLOCKS: '4' })
})
after(async () => {
  await submitter?.stop()
  await proxy?.stop()
  await fx?.stop()
})

/** Pays 2 tokens to a recipient with `payer`; every status seen goes to `statuses`. */
async function payHidingReceipts(payerIndex: number, statuses: SubmissionStatusPush[]): Promise<{ client: WalletClient; paying: Promise<FinalStatus> }> {
  const client = new WalletClient({ url: fx.gateway.wsUrl, account: fx.payers[payerIndex]!, chainId: fx.chainId })
  await client.connect()
  proxy.hide = (r) => r.method === 'eth_getTransactionReceipt'
  const { session, token } = fx.paymentSession()
  const paying = client.pay(session, token, { onStatus: (push) => statuses.push(push) })
  return { client, paying }
}

const anvil = () => createTestClient({ mode: 'anvil', transport: http(fx.chain.rpcUrl) })

/** Mines a block every 200 ms until `done` (the submitter's verdicts need blocks after it saw receipts missing). */
const mineUntil = (what: string, done: () => boolean) =>
  waitFor(what, async () => {
    if (done()) return true
    await anvil().mine({ blocks: 1 })
    await new Promise((resolve) => setTimeout(resolve, 150))
    return false
  }, 30_000)

const watchedDrop = (statuses: SubmissionStatusPush[]) => statuses.find((s) => s.failureCategory === 'DROPPED' && s.watchedUntilBlock !== undefined)

test('pay waits through a DROPPED failure still watched, and resolves SUCCESS when the receipt shows up', async () => {
  const statuses: SubmissionStatusPush[] = []
  const { client, paying } = await payHidingReceipts(3, statuses)
  let settled: FinalStatus | undefined
  void paying.then((final) => (settled = final), () => {})
  try {
    await mineUntil('a DROPPED status still watched', () => watchedDrop(statuses) !== undefined)
    const dropped = watchedDrop(statuses)!
    assert.equal(dropped.status, 'FAILURE')
    assert.equal(settled, undefined, `pay did not end on a watched DROPPED: ${JSON.stringify(settled)}`)
    proxy.hide = undefined
    const final = await paying
    assert.equal(final.status, 'SUCCESS')
    assert.match(final.txHash ?? '', /^0x[0-9a-f]{64}$/)
    assert.equal(statuses.at(-1)?.status, 'SUCCESS', `SUCCESS after the DROPPED: ${statuses.map((s) => s.status).join(' ')}`)
  } finally {
    proxy.hide = undefined
    client.disconnect()
  }
})

test('pay resolves with the DROPPED failure once the submitter announces it final (no watchedUntilBlock)', async () => {
  const statuses: SubmissionStatusPush[] = []
  const { client, paying } = await payHidingReceipts(4, statuses)
  let settled: FinalStatus | undefined
  void paying.then((final) => (settled = final), () => {})
  try {
    await mineUntil('pay to end after the watch', () => settled !== undefined)
    const final = await paying
    assert.deepEqual([final.status, final.failureCategory, final.watchedUntilBlock], ['FAILURE', 'DROPPED', undefined])
    assert.ok(watchedDrop(statuses), `the watched DROPPED came first: ${JSON.stringify(statuses)}`)
  } finally {
    proxy.hide = undefined
    client.disconnect()
  }
})
