/**
 * The submission queue under a sybil flood (issue 38, item 2), with the real gateway, a real submitter,
 * anvil and PostgreSQL. First the rules on a small scale: future submissions (not executable yet) have
 * budgets of their own, the oldest is evicted with a final FAILURE EVICTED its wallet is told of, and
 * executable payments never count them; a mined payment promotes the owner's next one.
 * Then the flood, with the default queue limits: 1,000 fresh wallets (no funds, keys that cost nothing)
 * each send 16 permits — nonces 0 to 15, one after the other as the nonce bound lets them in: the first
 * at the chain's nonce, the other 15 ahead of it; none can ever run. They come from 100 loopback
 * addresses, 10 wallets each, so the per-address limits do not stop them (an attacker has many
 * addresses). The submitter is stopped during the flood, so the queue is as full as sybils who keep
 * refilling it keep it; it is started again before the real payment.
 * Must hold: a payment from a funded wallet is accepted and settles in its normal time (here: within
 * 10 s, against well under 2 s quiet); the flood's permits are future, kept within
 * GATEWAY_MAX_FUTURE_TOTAL and GATEWAY_MAX_FUTURE_PER_OWNER, and every one pushed out is announced to its
 * wallet as FAILURE EVICTED.
 */
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import type { LocalAccount } from 'viem'
import { generatePrivateKey } from 'viem/accounts'
import { settlementAbi } from '../../src/chain/abi/settlement-abi.js'
import { nativeAccount } from '../../src/chain/tx/native-signer.js'
import type { RunningSubmitter } from '../../src/processor/submitter/start-submitter.js'
import { randomBytes16, ZERO_BYTES16 } from '../../src/wire/order-reference.js'
import { transferRequestOf } from '../../src/wire/payment-request.js'
import { domainSeparator, typedDataHasher, type TypedDataHasher, type TypedFields } from '../../src/wire/typed-data-hasher.js'
import { signPayment } from '../../src/wire/sign-payment.js'
import { waitFor, startTestSubmitter } from '../../src/devnet/testing/index.js'
import { connectGateway, pushes, type GatewayMessage, type GatewayTestClient } from '../helpers/gateway-client.js'
import { enqueueSubmission, type QueueLimits } from '../../src/processor/db/submissions.js'
import { markSucceeded, waitingSubmissions } from '../../src/processor/db/submitter-queue.js'
import { bindingDigest, intentOfPayment } from '../../src/wire/payment-request.js'
import { startGatewayFixture, type GatewayFixture } from './fixture.js'

const WALLETS = 1_000
const PERMITS = 16
const ADDRESSES = 100
/** Wallets sending at once; each sends its permits one after the other. */
const CONCURRENCY = 100
const FUTURE_TOTAL = 1_024
const FUTURE_PER_OWNER = 4

let f: GatewayFixture
let submitter: RunningSubmitter | undefined
const flood: GatewayTestClient[] = []

before(async () => {
  // The relayer status stays fresh while the submitter is stopped for the flood.
  f = await startGatewayFixture({ GATEWAY_RELAYER_STALE_MS: '600000' })
})
after(async () => {
  await Promise.all(flood.map((c) => c.close().catch(() => {})))
  await submitter?.stop()
  await f.stop()
})

const hashers = new Map<string, TypedDataHasher>()

/**
 * A fresh key that signs typed data with the gateway's EIP-712 hasher (type hashes computed once) and
 * libsecp256k1: viem's `hashTypedData` re-derives everything per call (~3 ms a payment on a busy machine).
 */
function throwawayWallet(): LocalAccount {
  const account = nativeAccount(generatePrivateKey())
  return {
    ...account,
    async signTypedData(typedData) {
      const { domain, types, primaryType, message } = typedData as { domain: Parameters<typeof domainSeparator>[0]; types: TypedFields; primaryType: string; message: Record<string, unknown> }
      let hasher = hashers.get(primaryType)
      if (!hasher) hashers.set(primaryType, (hasher = typedDataHasher(types, primaryType)))
      return account.sign!({ hash: hasher(domainSeparator(domain), message) })
    },
  }
}

/** Pays from a funded payer through the gateway; resolves with the seconds from submission to SUCCESS. */
async function realPayment(payerIndex: number): Promise<{ seconds: number; final: GatewayMessage }> {
  const payer = f.payers[payerIndex]!
  const client = await f.connect(payer)
  const request = await f.signedPayment(payer, { token: f.tokens[0]! })
  const started = performance.now()
  const ack = await client.request('SUBMIT_PAYMENT', { transferRequest: request })
  assert.equal(ack.type, 'SUBMIT_PAYMENT_ACK', JSON.stringify(ack))
  const final = await client.next((m) => m.type === 'SUBMISSION_STATUS' && m.payloadId === request.payloadId && (m.status === 'SUCCESS' || m.status === 'FAILURE'), 0)
  return { seconds: (performance.now() - started) / 1000, final }
}

test('future submissions have their own budgets: per owner refused, in all the oldest evicted and told; executable ones never count them', async () => {
  const gateway = await f.startGateway({ GATEWAY_MAX_FUTURE_TOTAL: '3', GATEWAY_MAX_FUTURE_PER_OWNER: '2', GATEWAY_MAX_QUEUED_TOTAL: '1' })
  const token = f.tokens[0]!
  const connect = (account: LocalAccount) => f.connect(account, gateway)
  const submit = async (client: GatewayTestClient, nonce?: bigint) => {
    const transferRequest = await f.signedPayment(client.account, { token, nonce })
    return { answer: await client.request('SUBMIT_PAYMENT', { transferRequest }), payloadId: transferRequest.payloadId }
  }
  const [a, b] = await Promise.all([connect(throwawayWallet()), connect(throwawayWallet())])
  const first = await submit(a, 0n)
  assert.equal(first.answer.type, 'SUBMIT_PAYMENT_ACK', 'an unfunded wallet\'s permit is accepted, as future')
  assert.equal((await submit(a, 1n)).answer.type, 'SUBMIT_PAYMENT_ACK')
  const third = await submit(a, 2n)
  assert.equal(third.answer.errorCode, 'RATE_LIMIT_EXCEEDED')
  assert.match(third.answer.message, /2 submissions queued that cannot run yet/)

  // One executable payment fills GATEWAY_MAX_QUEUED_TOTAL=1 though two future ones wait; the next is refused.
  const funded = await connect(f.payers[2]!)
  assert.equal((await submit(funded)).answer.type, 'SUBMIT_PAYMENT_ACK', 'future submissions do not count against the executable cap')
  const other = await connect(f.payers[3]!)
  const full = await submit(other)
  assert.equal(full.answer.errorCode, 'RELAYER_UNAVAILABLE')
  assert.match(full.answer.message, /queue is full \(1 waiting\)/)

  // B's future permits push A's oldest out: at most 3 future ones wait.
  assert.equal((await submit(b, 0n)).answer.type, 'SUBMIT_PAYMENT_ACK')
  assert.equal((await submit(b, 1n)).answer.type, 'SUBMIT_PAYMENT_ACK')
  const evicted = await a.next((m) => m.type === 'SUBMISSION_STATUS' && m.requestId === undefined && m.payloadId === first.payloadId && m.status === 'FAILURE')
  assert.equal(evicted.failureCategory, 'EVICTED')
  assert.equal(evicted.watchedUntilBlock, undefined, 'final')
  assert.match(evicted.failureReason, /evicted: 3 submissions that could not run yet/)
  const asked = await a.request('GET_SUBMISSION_STATUS', { payloadId: first.payloadId })
  assert.deepEqual([asked.status, asked.failureCategory], ['FAILURE', 'EVICTED'])
  const { rows } = await f.db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM submissions WHERE future AND status = 'ENQUEUING'`)
  assert.equal(rows[0]!.n, 3)
})

test('a mined payment makes the owner\'s future submission with the next permit nonce executable: taken before other future ones', async () => {
  const token = f.tokens[0]!
  // As a gateway saw them: the owner's nonce 0, nothing to pay with, so both permits are future.
  const limits: QueueLimits = { chainNonce: 0n, balance: 0n, maxPerOwner: 16, maxTotal: 10_000, maxFuturePerOwner: 4, maxFuture: 1_024 }
  const queue = async (account: LocalAccount, nonce: bigint) => {
    const request = await f.signedPayment(account, { token, nonce })
    const intent = intentOfPayment(request)
    const digest = bindingDigest(intent, f.chainId, f.contract)
    const { outcome, future } = await enqueueSubmission(f.db.pool, { intent, callerAddress: intent.owner, digest, request }, limits)
    assert.deepEqual([outcome, future], ['enqueued', true])
    return request.payloadId
  }
  const [owner, other] = [throwawayWallet(), throwawayWallet()]
  const otherFuture = await queue(other, 0n)
  const [first, second] = [await queue(owner, 0n), await queue(owner, 1n)]
  // The first one is mined (its transaction recorded and sent by a submitter, here written directly).
  await f.db.pool.query(`UPDATE submissions SET status = 'BROADCASTING' WHERE payload_id = $1`, [first])
  await markSucceeded(f.db.pool, [{ payloadId: first, txHash: `0x${'ab'.repeat(32)}` }])
  const { rows } = await f.db.pool.query<{ payloadId: string; future: boolean }>(
    `SELECT payload_id AS "payloadId", future FROM submissions WHERE payload_id = ANY($1)`,
    [[second, otherFuture]],
  )
  assert.deepEqual(Object.fromEntries(rows.map((r) => [r.payloadId, r.future])), { [second]: false, [otherFuture]: true })
  const order = (await waitingSubmissions(f.db.pool, 1_000)).map((row) => row.payloadId)
  assert.ok(order.indexOf(second) >= 0 && order.indexOf(second) < order.indexOf(otherFuture), 'the promoted one before the older future one')
})

test('1,000 fresh wallets with 16 permits each do not keep a real payment out: it settles in its normal time', async (t) => {
  submitter = await startTestSubmitter(f.chain, f.db)
  const quiet = await realPayment(0)
  assert.equal(quiet.final.status, 'SUCCESS', JSON.stringify(quiet.final))
  t.diagnostic(`quiet payment settled in ${quiet.seconds.toFixed(2)} s`)
  await submitter.stop()
  submitter = undefined

  const { deployment } = f.chain
  const token = f.tokens[0]!
  const principal = 5_000_000n
  const fee = await f.publicClient.readContract({ address: deployment.settlementContract, abi: settlementAbi, functionName: 'calculateFees', args: [principal, ZERO_BYTES16] })
  const deadline = BigInt(Math.floor(Date.now() / 1000) + 3600)
  const answers = new Map<string, number>()
  const floodStarted = performance.now()
  let next = 0
  const sendWallets = async () => {
    for (let i = next++; i < WALLETS; i = next++) {
      const account = throwawayWallet()
      const localAddress = `127.1.0.${(i % ADDRESSES) + 1}`
      const client = await connectGateway(f.gateway.wsUrl, account, f.chainId, { localAddress })
      flood.push(client)
      for (let nonce = 0n; nonce < PERMITS; nonce++) {
        const signed = await signPayment({
          payer: account, settlementContract: deployment.settlementContract, tokenDomain: token.domain, recipient: deployment.recipients[0]!,
          principal, fee, permitNonce: nonce, deadline, orderReference: randomBytes16(),
        })
        const answer = await client.request('SUBMIT_PAYMENT', { transferRequest: transferRequestOf(signed, crypto.randomUUID()) })
        const outcome = answer.type === 'ERROR' ? answer.errorCode! : answer.type
        answers.set(outcome, (answers.get(outcome) ?? 0) + 1)
      }
    }
  }
  await Promise.all(Array.from({ length: CONCURRENCY }, sendWallets))
  const floodSeconds = (performance.now() - floodStarted) / 1000
  t.diagnostic(`flood: ${WALLETS * PERMITS} permits answered in ${floodSeconds.toFixed(1)} s: ${JSON.stringify(Object.fromEntries(answers))}`)

  submitter = await startTestSubmitter(f.chain, f.db)
  const loaded = await realPayment(1)
  t.diagnostic(`payment under the flood settled in ${loaded.seconds.toFixed(2)} s`)
  assert.equal(loaded.final.status, 'SUCCESS', JSON.stringify(loaded.final))
  assert.ok(loaded.seconds < 10, `settled in ${loaded.seconds.toFixed(2)} s`)

  const { rows } = await f.db.pool.query<{ future: boolean; status: string; category: string | null; n: number }>(
    `SELECT future, status, failure_category AS category, count(*)::int AS n FROM submissions GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`,
  )
  t.diagnostic(`queue after the flood: ${JSON.stringify(rows)}`)
  const waitingFuture = rows.filter((r) => r.future && r.status !== 'FAILURE' && r.status !== 'SUCCESS').reduce((n, r) => n + r.n, 0)
  assert.ok(waitingFuture <= FUTURE_TOTAL, `${waitingFuture} future submissions waiting, budget ${FUTURE_TOTAL}`)
  const owners = flood.map((c) => c.account.address.toLowerCase())
  const { rows: executable } = await f.db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM submissions WHERE NOT future AND owner = ANY($1)`, [owners])
  assert.equal(executable[0]!.n, 0, 'no flood permit is classed executable')
  // Each wallet gets its future budget in; past it a clear refusal: RATE_LIMIT_EXCEEDED for the next
  // permit, then NONCE_MISMATCH (nothing queued can bring the token to the nonces after it).
  assert.deepEqual([...answers.keys()].filter((k) => !['SUBMIT_PAYMENT_ACK', 'RATE_LIMIT_EXCEEDED', 'NONCE_MISMATCH'].includes(k)), [])
  assert.ok((answers.get('SUBMIT_PAYMENT_ACK') ?? 0) <= WALLETS * FUTURE_PER_OWNER + 8, `at most ${FUTURE_PER_OWNER} per wallet`)

  // Every evicted permit was announced to its wallet, final, with the reason.
  const { rows: evictedRows } = await f.db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM submissions WHERE failure_category = 'EVICTED' AND owner = ANY($1)`, [owners])
  const evicted = evictedRows[0]!.n
  assert.ok(evicted >= WALLETS * FUTURE_PER_OWNER - FUTURE_TOTAL - 64, `${evicted} evicted`)
  const announced = await waitFor('every eviction pushed to its wallet', () => {
    const seen = flood.flatMap((c) => pushes(c, 'SUBMISSION_STATUS')).filter((m) => m.failureCategory === 'EVICTED')
    return seen.length >= evicted && seen
  }, 30_000)
  assert.ok(announced.every((m) => m.status === 'FAILURE' && m.watchedUntilBlock === undefined && /evicted/.test(m.failureReason as string)))
  assert.equal(new Set(announced.map((m) => m.payloadId)).size, evicted)
})
