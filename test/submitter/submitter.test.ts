/**
 * The broadcast submitter on a real anvil chain and a real PostgreSQL: validation before gas, ordering of
 * one payer's payments, stuck-transaction replacement, the fee cap on the first transaction too, the
 * relayer guard, and receipts: an unreadable one is not an absent one, DROPPED waits for blocks and is taken back when the receipt shows up — also by
 * the next submitter after a restart — and becomes final when its watch ends.
 */
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { createTestClient, getAbiItem, http, parseEther, parseGwei, toFunctionSelector, type Hex } from 'viem'
import { settlementAbi } from '../../src/chain/abi/settlement-abi.js'
import { privateKeyToAccount } from 'viem/accounts'
import { createChainClient } from '../../src/chain/create-chain-client.js'
import type { Database } from '../../src/processor/db/open-database.js'
import { readRelayerStatus } from '../../src/processor/db/relayer-status.js'
import { waitFor, startRpcProxy, type RpcProxy, signTransferRequests, enqueue, settlementRefsOnChain, startChainAndDatabase, startTestSubmitter, waitForFinal } from '../../src/devnet/testing/index.js'
import type { LocalChain } from '../../src/devnet/testing/index.js'
import { channels, type StatusNotice, type SubmissionRow } from '../../src/processor/db/submissions.js'

let chain: LocalChain
let db: Database

before(async () => {
  ;({ chain, db } = await startChainAndDatabase())
})
after(async () => {
  await db?.close()
  await chain?.stop()
})

const testClient = () => createTestClient({ mode: 'anvil', transport: http(chain.rpcUrl) })
const relayer = () => privateKeyToAccount(chain.deployment.relayerKey!).address

/** A submitter on a chain that mines nothing until `mineAndSucceed`; automine is back on afterwards. */
async function withAutomineOff(env: Record<string, string>, run: () => Promise<void>): Promise<void> {
  await testClient().setAutomine(false)
  const submitter = await startTestSubmitter(chain, db, env)
  try {
    await run()
  } finally {
    await testClient().setAutomine(true)
    await submitter.stop()
  }
}

/** Mines what is pending and waits for the submission to end SUCCESS. */
async function mineAndSucceed(payloadId: string): Promise<SubmissionRow> {
  await testClient().setAutomine(true)
  await testClient().mine({ blocks: 1 })
  const [row] = await waitForFinal(db, [payloadId])
  assert.equal(row!.status, 'SUCCESS')
  return row!
}

test('valid payments are mined once each; bad ones fail with their category and spend no gas', async () => {
  const good = await signTransferRequests(chain, 6, { payers: 2 })
  const [tampered] = await signTransferRequests(chain, 1, { firstPayer: 3, payers: 1 })
  tampered!.request.payWithPermitParams.beneficiary = chain.deployment.recipients[1]!
  const [late] = await signTransferRequests(chain, 1, { firstPayer: 4, payers: 1, deadline: BigInt(Math.floor(Date.now() / 1000) - 1) })
  const [tooBig] = await signTransferRequests(chain, 1, { firstPayer: 5, payers: 1, principal: 10n ** 30n })
  const publicClient = createChainClient({ rpcUrl: chain.rpcUrl })
  const nonceBefore = await publicClient.getTransactionCount({ address: relayer() })
  const submitter = await startTestSubmitter(chain, db)
  try {
    await enqueue(db, [...good, tampered!, late!, tooBig!])
    const rows = await waitForFinal(db, [...good, tampered!, late!, tooBig!].map((s) => s.request.payloadId))
    const byId = new Map(rows.map((row) => [row.payloadId, row]))
    for (const s of good) assert.equal(byId.get(s.request.payloadId)?.status, 'SUCCESS')
    assert.equal(byId.get(tampered!.request.payloadId)?.failureCategory, 'INVALID_SIGNATURE')
    assert.equal(byId.get(late!.request.payloadId)?.failureCategory, 'EXPIRED')
    assert.equal(byId.get(tooBig!.request.payloadId)?.failureCategory, 'INSUFFICIENT_BALANCE')

    const settled = await settlementRefsOnChain(chain)
    for (const s of good) {
      const onChain = settled.filter((x) => x.orderReference === s.orderReference)
      assert.equal(onChain.length, 1)
      assert.equal(onChain[0]!.txHash, byId.get(s.request.payloadId)!.txHash)
    }
    assert.equal(await publicClient.getTransactionCount({ address: relayer() }), nonceBefore + good.length, 'no gas spent on refused payments')
  } finally {
    await submitter.stop()
  }
})

test('a transaction stuck past the timeout is replaced with a higher fee and mined once', async () => {
  const [signed] = await signTransferRequests(chain, 1, { firstPayer: 6, payers: 1 })
  await withAutomineOff({ SUBMITTER_STUCK_TIMEOUT_MS: '300' }, async () => {
    await enqueue(db, [signed!])
    const sent = await waitFor('a replacement to be recorded', async () => {
      const { rows } = await db.pool.query<{ tx_hash: Hex; nonce: string; max_fee_per_gas: string }>(
        'SELECT tx_hash, nonce, max_fee_per_gas FROM submission_transactions WHERE payload_id = $1 ORDER BY sent_at',
        [signed!.request.payloadId],
      )
      return rows.length >= 2 && rows
    })
    assert.equal(new Set(sent.map((r) => r.nonce)).size, 1, 'a replacement reuses the nonce')
    assert.ok(BigInt(sent[1]!.max_fee_per_gas) > BigInt(sent[0]!.max_fee_per_gas))
    const row = await mineAndSucceed(signed!.request.payloadId)
    const settled = (await settlementRefsOnChain(chain)).filter((x) => x.orderReference === signed!.orderReference)
    assert.equal(settled.length, 1)
    assert.equal(settled[0]!.txHash, row.txHash)
    assert.ok(sent.some((r) => r.tx_hash === row.txHash))
  })
})

test('the relayer guard: no work while the relayer is unfunded, resumed by a top-up without restart', async () => {
  const balance = await createChainClient({ rpcUrl: chain.rpcUrl }).getBalance({ address: relayer() })
  await testClient().setBalance({ address: relayer(), value: 0n })
  const submitter = await startTestSubmitter(chain, db, { SUBMITTER_BALANCE_CHECK_MS: '50' })
  try {
    await waitFor('the relayer to be reported unavailable', async () => (await readRelayerStatus(db.pool))?.available === false)
    const [signed] = await signTransferRequests(chain, 1, { firstPayer: 7, payers: 1 })
    await enqueue(db, [signed!])
    await new Promise((resolve) => setTimeout(resolve, 500))
    const { rows } = await db.pool.query('SELECT status FROM submissions WHERE payload_id = $1', [signed!.request.payloadId])
    assert.equal(rows[0].status, 'ENQUEUING', 'not taken while the relayer is unfunded')
    await testClient().setBalance({ address: relayer(), value: balance > parseEther('1') ? balance : parseEther('10') })
    const [row] = await waitForFinal(db, [signed!.request.payloadId])
    assert.equal(row!.status, 'SUCCESS')
    assert.equal((await readRelayerStatus(db.pool))?.available, true)
  } finally {
    await submitter.stop()
  }
})

test('the first transaction is capped by SUBMITTER_MAX_FEE_PER_GAS: sent at the cap while the network asks more, mined once the base fee comes down', async () => {
  const anvil = testClient()
  const publicClient = createChainClient({ rpcUrl: chain.rpcUrl })
  const cap = parseGwei('20')
  // The network's price: a base fee of 50 gwei, above the cap.
  await anvil.setNextBlockBaseFeePerGas({ baseFeePerGas: parseGwei('50') })
  await anvil.mine({ blocks: 1 })
  assert.equal((await publicClient.getBlock()).baseFeePerGas, parseGwei('50'))

  const [signed] = await signTransferRequests(chain, 1, { firstPayer: 18, payers: 1 })
  const submitter = await startTestSubmitter(chain, db, { SUBMITTER_MAX_FEE_PER_GAS: cap.toString(), SUBMITTER_STUCK_TIMEOUT_MS: '500' })
  try {
    await enqueue(db, [signed!])
    const first = await waitFor('the first transaction to be recorded', async () => {
      const { rows } = await db.pool.query<{ tx_hash: Hex; max_fee_per_gas: string; max_priority_fee_per_gas: string }>(
        'SELECT tx_hash, max_fee_per_gas::text, max_priority_fee_per_gas::text FROM submission_transactions WHERE payload_id = $1 ORDER BY sent_at',
        [signed!.request.payloadId],
      )
      return rows[0]
    })
    assert.equal(BigInt(first.max_fee_per_gas), cap, 'signed at the cap, not at twice the base fee')
    assert.ok(BigInt(first.max_priority_fee_per_gas) <= cap)

    // It waits: blocks at the high base fee do not take it, and no replacement passes the cap.
    await anvil.setNextBlockBaseFeePerGas({ baseFeePerGas: parseGwei('50') })
    await anvil.mine({ blocks: 1 })
    await new Promise((resolve) => setTimeout(resolve, 1_500))
    const { rows: waiting } = await db.pool.query<{ status: string; fees: string[] }>(
      `SELECT s.status, array_agg(t.max_fee_per_gas::text) AS fees FROM submissions s JOIN submission_transactions t USING (payload_id)
       WHERE s.payload_id = $1 GROUP BY s.status`,
      [signed!.request.payloadId],
    )
    assert.equal(waiting[0]!.status, 'BROADCASTING')
    assert.ok(waiting[0]!.fees.every((fee) => BigInt(fee) <= cap), `no transaction above the cap: ${waiting[0]!.fees.join(', ')}`)

    // The base fee comes down below the cap: the payment is mined, at the cap.
    await anvil.setNextBlockBaseFeePerGas({ baseFeePerGas: parseGwei('5') })
    await anvil.mine({ blocks: 1 })
    const [row] = await waitForFinal(db, [signed!.request.payloadId], 20_000)
    assert.equal(row!.status, 'SUCCESS', JSON.stringify(row))
    const mined = await publicClient.getTransaction({ hash: row!.txHash! })
    assert.equal(mined.maxFeePerGas, cap)
  } finally {
    await submitter.stop()
  }
})

/** A submitter that reaches the chain through an RPC proxy the test steers; both stopped after `run`. */
async function throughProxy(env: Record<string, string>, run: (proxy: RpcProxy) => Promise<void>): Promise<void> {
  const proxy = await startRpcProxy(chain.rpcUrl)
  const submitter = await startTestSubmitter(chain, db, { RPC_URL: proxy.url, ...env })
  try {
    await run(proxy)
  } finally {
    await submitter.stop()
    await proxy.stop()
  }
}

const rowOf = async (payloadId: string) =>
  (
    await db.pool.query<{ status: string; failure_category: string | null; tx_hash: Hex | null; dropped_watch_until: string | null }>(
      'SELECT status, failure_category, tx_hash, dropped_watch_until::text FROM submissions WHERE payload_id = $1',
      [payloadId],
    )
  ).rows[0]!

const minedOnChain = (orderReference: Hex) =>
  waitFor('the payment to be mined', async () => (await settlementRefsOnChain(chain)).find((s) => s.orderReference === orderReference))

test('a node error during the simulation is not the payment\'s failure: it waits and goes through once the node answers', () =>
  throughProxy({ SUBMITTER_DEFER_MS: '20' }, async (proxy) => {
    // Only the simulation of the payment itself (a transferWithPermit call) is refused; reads go through.
    const selector = toFunctionSelector(getAbiItem({ abi: settlementAbi, name: 'transferWithPermit' }))
    proxy.refuse = (r) => r.method === 'eth_call' && String((r.params?.[0] as { data?: string; input?: string })?.data ?? (r.params?.[0] as { input?: string })?.input).startsWith(selector)
    const [signed] = await signTransferRequests(chain, 1, { firstPayer: 8, payers: 1 })
    await enqueue(db, [signed!])
    await waitFor('several refused simulations', () => proxy.refused >= 3)
    assert.notEqual((await rowOf(signed!.request.payloadId)).status, 'FAILURE')
    proxy.refuse = undefined
    const [row] = await waitForFinal(db, [signed!.request.payloadId])
    assert.equal(row!.status, 'SUCCESS')
  }))

test('receipts the node fails to answer for longer than the old 5 s do not make a mined payment FAILURE: it ends SUCCESS', () =>
  throughProxy({}, async (proxy) => {
    proxy.refuse = (r) => r.method === 'eth_getTransactionReceipt'
    const [signed] = await signTransferRequests(chain, 1, { firstPayer: 9, payers: 1 })
    await enqueue(db, [signed!])
    await minedOnChain(signed!.orderReference)
    await waitFor('receipt reads refused', () => proxy.refused > 0)
    await new Promise((resolve) => setTimeout(resolve, 7_000))
    const during = await rowOf(signed!.request.payloadId)
    assert.equal(during.status, 'BROADCASTING', `an unreadable receipt is not a missing one: ${JSON.stringify(during)}`)
    proxy.refuse = undefined
    const [row] = await waitForFinal(db, [signed!.request.payloadId])
    assert.equal(row!.status, 'SUCCESS')
  }))

test('DROPPED waits for blocks, and a DROPPED payment whose receipt then shows up becomes SUCCESS', () =>
  throughProxy({ SUBMITTER_DROPPED_AFTER_BLOCKS: '3' }, async (proxy) => {
    // A node whose receipts lag behind its state: the nonce is consumed, the receipt "does not exist".
    proxy.hide = (r) => r.method === 'eth_getTransactionReceipt'
    const [signed] = await signTransferRequests(chain, 1, { firstPayer: 10, payers: 1 })
    await enqueue(db, [signed!])
    const mined = await minedOnChain(signed!.orderReference)
    await new Promise((resolve) => setTimeout(resolve, 6_000))
    assert.equal((await rowOf(signed!.request.payloadId)).status, 'BROADCASTING', 'no DROPPED while the chain has not moved on')
    await testClient().mine({ blocks: 3 })
    await waitFor('DROPPED after 3 blocks without a receipt', async () => (await rowOf(signed!.request.payloadId)).failure_category === 'DROPPED')
    proxy.hide = undefined
    const recovered = await waitFor("the chain's word to turn it into SUCCESS", async () => {
      const row = await rowOf(signed!.request.payloadId)
      return row.status === 'SUCCESS' && row
    })
    assert.equal(recovered.failure_category, null)
    assert.equal(recovered.tx_hash, mined.txHash)
  }))

/** Mines a block every 250 ms until the submission is DROPPED (the verdict needs blocks after the submitter saw the receipt missing). */
const droppedWhileMining = (payloadId: string) =>
  waitFor('DROPPED without a receipt', async () => {
    if ((await rowOf(payloadId)).failure_category === 'DROPPED') return true
    await testClient().mine({ blocks: 1 })
    await new Promise((resolve) => setTimeout(resolve, 200))
    return false
  })

test('a DROPPED watch survives a submitter restart: the next submitter finds the receipt and makes it SUCCESS', async () => {
  const [signed] = await signTransferRequests(chain, 1, { firstPayer: 16, payers: 1 })
  let mined: Awaited<ReturnType<typeof minedOnChain>> | undefined
  await throughProxy({ SUBMITTER_DROPPED_AFTER_BLOCKS: '1', SUBMITTER_DROPPED_WATCH_BLOCKS: '1000' }, async (proxy) => {
    proxy.hide = (r) => r.method === 'eth_getTransactionReceipt'
    await enqueue(db, [signed!])
    mined = await minedOnChain(signed!.orderReference)
    await droppedWhileMining(signed!.request.payloadId)
  })
  // The first submitter is stopped; the row alone tells the next one what to watch.
  const stored = await rowOf(signed!.request.payloadId)
  const head = await createChainClient({ rpcUrl: chain.rpcUrl }).getBlockNumber()
  assert.ok(stored.dropped_watch_until !== null && BigInt(stored.dropped_watch_until) > head, `the watch is stored: until ${stored.dropped_watch_until}, head ${head}`)
  const submitter = await startTestSubmitter(chain, db)
  try {
    const recovered = await waitFor('the restarted submitter to turn it into SUCCESS', async () => {
      const row = await rowOf(signed!.request.payloadId)
      return row.status === 'SUCCESS' && row
    }, 20_000)
    assert.equal(recovered.tx_hash, mined!.txHash)
    assert.equal(recovered.dropped_watch_until, null)
  } finally {
    await submitter.stop()
  }
})

test('a DROPPED watch that ends without a receipt is announced final, and nothing moves it afterwards', async () => {
  const [signed] = await signTransferRequests(chain, 1, { firstPayer: 17, payers: 1 })
  const notices: string[] = []
  const listener = await db.listen([channels.status], (_, payload) => {
    const notice = JSON.parse(payload) as StatusNotice
    if (notice.payloadId === signed!.request.payloadId) notices.push(`${notice.status}/${notice.failureCategory ?? ''}/${notice.watchedUntilBlock ?? 'final'}`)
  })
  try {
    await throughProxy({ SUBMITTER_DROPPED_AFTER_BLOCKS: '1', SUBMITTER_DROPPED_WATCH_BLOCKS: '2' }, async (proxy) => {
      proxy.hide = (r) => r.method === 'eth_getTransactionReceipt'
      await enqueue(db, [signed!])
      await minedOnChain(signed!.orderReference)
      await droppedWhileMining(signed!.request.payloadId)
      await testClient().mine({ blocks: 3 })
      await waitFor('the watch to end', async () => (await rowOf(signed!.request.payloadId)).dropped_watch_until === null)
    })
    const submitter = await startTestSubmitter(chain, db)
    try {
      await new Promise((resolve) => setTimeout(resolve, 2_000))
      assert.deepEqual(await rowOf(signed!.request.payloadId).then((r) => [r.status, r.failure_category]), ['FAILURE', 'DROPPED'], 'a final verdict is not watched again')
    } finally {
      await submitter.stop()
    }
    await waitFor('the final notice', () => notices.at(-1) === 'FAILURE/DROPPED/final')
    assert.match(notices.at(-2) ?? '', /^FAILURE\/DROPPED\/\d+$/, `first the watched verdict: ${notices.join(' ')}`)
  } finally {
    await listener.close()
  }
})

test('junk permits far ahead of the token nonce do not starve a real payment, and fail after backing off', async () => {
  const junk = await signTransferRequests(chain, 30, { firstPayer: 11, payers: 1, nonceOffset: 1000n })
  await enqueue(db, junk)
  const submitter = await startTestSubmitter(chain, db, { SUBMITTER_BATCH: '4', SUBMITTER_DEFER_MS: '50', SUBMITTER_MAX_DEFERRALS: '4' })
  try {
    await new Promise((resolve) => setTimeout(resolve, 500))
    const [real] = await signTransferRequests(chain, 1, { firstPayer: 12, payers: 1 })
    await enqueue(db, [real!])
    const [row] = await waitForFinal(db, [real!.request.payloadId], 15_000)
    assert.equal(row!.status, 'SUCCESS')
    const junkRows = await waitForFinal(db, junk.map((s) => s.request.payloadId), 30_000)
    for (const junkRow of junkRows) assert.deepEqual([junkRow.status, junkRow.failureCategory], ['FAILURE', 'NONCE_MISMATCH'])
    const { rows } = await db.pool.query<{ defers: number[] }>('SELECT array_agg(DISTINCT defer_count) AS defers FROM submissions WHERE payload_id = ANY($1)', [junk.map((s) => s.request.payloadId)])
    assert.deepEqual(rows[0]!.defers, [4], 'each junk permit was put back 4 times, then failed')
  } finally {
    await submitter.stop()
  }
})

/** The fees of every transaction recorded for a submission, oldest first. */
const recordedFees = async (payloadId: string) =>
  (await db.pool.query<{ max_fee_per_gas: string }>('SELECT max_fee_per_gas FROM submission_transactions WHERE payload_id = $1 ORDER BY sent_at', [payloadId])).rows.map((r) =>
    BigInt(r.max_fee_per_gas),
  )

test('fee bumps stop at the ceiling: SUBMITTER_MAX_FEE_GROWTH times the first fee', async (t) => {
  const [signed] = await signTransferRequests(chain, 1, { firstPayer: 13, payers: 1 })
  await withAutomineOff({ SUBMITTER_STUCK_TIMEOUT_MS: '100', SUBMITTER_MAX_FEE_GROWTH: '2' }, async () => {
    await enqueue(db, [signed!])
    await new Promise((resolve) => setTimeout(resolve, 4_000))
    const fees = await recordedFees(signed!.request.payloadId)
    assert.ok(fees.length >= 2, 'stuck: replaced')
    assert.ok(fees.every((fee) => fee <= 2n * fees[0]!), `every fee within twice the first: ${fees.join(' ')}`)
    assert.ok(fees.length <= 8, `1.125^n passes 2 after 6 bumps, so at most 7 transactions; got ${fees.length}`)
    t.diagnostic(`${fees.length} transactions in 4 s, the last at ${Number((fees.at(-1)! * 1000n) / fees[0]!) / 1000} times the first fee`)
    await mineAndSucceed(signed!.request.payloadId)
  })
})

test('no fee bump for a transaction the node never accepted: the same bytes are sent again', () =>
  throughProxy({ SUBMITTER_STUCK_TIMEOUT_MS: '100' }, async (proxy) => {
    proxy.refuse = (r) => r.method === 'eth_sendRawTransaction'
    const [signed] = await signTransferRequests(chain, 1, { firstPayer: 14, payers: 1 })
    await enqueue(db, [signed!])
    await waitFor('several refused sends', () => proxy.refused >= 4)
    assert.equal((await recordedFees(signed!.request.payloadId)).length, 1, 'one transaction recorded, never replaced')
    proxy.refuse = undefined
    const [row] = await waitForFinal(db, [signed!.request.payloadId])
    assert.equal(row!.status, 'SUCCESS')
  }))

test('no fee bump while the relayer guard says unavailable', async () => {
  const [signed] = await signTransferRequests(chain, 1, { firstPayer: 15, payers: 1 })
  const balance = await createChainClient({ rpcUrl: chain.rpcUrl }).getBalance({ address: relayer() })
  try {
    await withAutomineOff({ SUBMITTER_STUCK_TIMEOUT_MS: '100', SUBMITTER_BALANCE_CHECK_MS: '50' }, async () => {
      await enqueue(db, [signed!])
      await waitFor('the transaction to be recorded', async () => (await recordedFees(signed!.request.payloadId)).length >= 1)
      await testClient().setBalance({ address: relayer(), value: 1n })
      await waitFor('the relayer to be reported unavailable', async () => (await readRelayerStatus(db.pool))?.available === false)
      const before = (await recordedFees(signed!.request.payloadId)).length
      await new Promise((resolve) => setTimeout(resolve, 1_500))
      assert.equal((await recordedFees(signed!.request.payloadId)).length, before, 'no replacement while unavailable')
      await testClient().setBalance({ address: relayer(), value: balance })
      await mineAndSucceed(signed!.request.payloadId)
    })
  } finally {
    await testClient().setBalance({ address: relayer(), value: balance > parseEther('1') ? balance : parseEther('10') })
  }
})
