/**
 * Every error code from a crafted bad message, over a real WebSocket: each is one ERROR answer with the
 * code's category and the request's id (when the message had a readable one), and the connection keeps
 * answering afterwards. Abuse is the exception: frames over the hard limit and sustained flooding close it.
 */
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { parseSignature, type Hex, type LocalAccount } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { ZERO_BYTES16 } from '../../src/wire/order-reference.js'
import { envelopeDigest, gatewayDomain, gatewayMessageTypes, payloadHash, type Envelope } from '../../src/wire/envelope.js'
import { errorCategories, type ErrorCode } from '../../src/wire/gateway-messages.js'
import type { GatewayMessage, GatewayTestClient } from '../helpers/gateway-client.js'
import { sendSettlements } from '../../src/devnet/testing/index.js'
import { startGatewayFixture, type GatewayFixture } from './fixture.js'

let f: GatewayFixture
let usdc: Hex
let eurc: Hex

before(async () => {
  f = await startGatewayFixture()
  usdc = f.tokens[0]!.domainSeparator
  eurc = f.tokens[1]!.domainSeparator
  // Payer 0 pays once in USDC: its permit nonce there is 1.
  await sendSettlements(f.chain, 1)
})
after(() => f.stop())

function assertError(answer: GatewayMessage | undefined, code: ErrorCode, requestId?: string, message?: RegExp): void {
  assert.ok(answer, `expected ${code}, got nothing`)
  assert.equal(answer.type, 'ERROR', JSON.stringify(answer))
  assert.equal(answer.errorCode, code, answer.message)
  assert.equal(answer.errorCategory, errorCategories[code])
  assert.equal(answer.requestId, requestId)
  assert.equal(typeof answer.message, 'string')
  if (message) assert.match(answer.message, message)
}

/** Signs a valid envelope, lets `mutate` break it, sends it and returns the answer. */
async function crafted(client: GatewayTestClient, type: string, payload: Record<string, unknown>, mutate: (e: Record<string, any>) => void) {
  const envelope: Record<string, any> = structuredClone(await client.sign(type, payload))
  const requestId = envelope.payload.requestId as string
  mutate(envelope)
  client.send(envelope)
  return { answer: await client.answerTo(requestId), requestId }
}

/** The next message after the current ones (for answers without a request id). */
async function nextAnswer(client: GatewayTestClient, send: () => void): Promise<GatewayMessage> {
  const from = client.messages.length
  send()
  return client.next(() => true, from)
}

async function stillAnswers(client: GatewayTestClient): Promise<void> {
  assert.equal((await client.request('GET_NONCE', { domainSeparator: usdc })).type, 'NONCE_RESULT')
  assert.equal(client.closed, undefined)
}

/** An envelope for `callerAddress` signed by `signer`. */
async function signedBy(signer: LocalAccount, callerAddress: Hex, payload: Record<string, unknown>): Promise<Envelope> {
  const deadline = Math.floor(Date.now() / 1000) + 10
  const fields = { type: 'GET_NONCE', callerAddress, deadline, payload }
  const signature = await signer.signTypedData!({
    domain: gatewayDomain(f.chainId),
    types: gatewayMessageTypes,
    primaryType: 'GatewayMessage',
    message: { type: 'GET_NONCE', callerAddress, deadline: BigInt(deadline), payloadHash: payloadHash(payload) },
  })
  const { r, s, yParity } = parseSignature(signature)
  return { ...fields, signature: { hash: envelopeDigest(f.chainId, fields), v: 27 + yParity, r, s } }
}

test('structural errors: garbage JSON, binary frames, missing fields, wrong types, unknown types and fields, oversized messages; the connection stays', async () => {
  const client = await f.connect(f.payers[1]!)
  assertError(await nextAnswer(client, () => client.sendRaw('{"type": "GET_NONCE", ')), 'INVALID_FORMAT', undefined, /not valid JSON/)
  assertError(await nextAnswer(client, () => client.sendRaw(Buffer.from('{}'), true)), 'INVALID_FORMAT', undefined, /binary/)
  assertError(await nextAnswer(client, () => client.send([1, 2])), 'INVALID_FORMAT', undefined, /object/)

  let r = await crafted(client, 'GET_NONCE', { domainSeparator: usdc }, (e) => delete e.deadline)
  assertError(r.answer, 'MISSING_FIELD', r.requestId, /message\.deadline/)
  r = await crafted(client, 'GET_NONCE', { domainSeparator: usdc }, (e) => delete e.signature.s)
  assertError(r.answer, 'MISSING_FIELD', r.requestId, /signature\.s/)
  r = await crafted(client, 'GET_NONCE', {}, () => {})
  assertError(r.answer, 'MISSING_FIELD', r.requestId, /payload\.domainSeparator/)
  r = await crafted(client, 'SUBMIT_PAYMENT', { transferRequest: { payWithPermitParams: {} } }, () => {})
  assertError(r.answer, 'MISSING_FIELD', r.requestId, /payload\.transferRequest\.payWithPermitParams\.token/)

  r = await crafted(client, 'GET_NONCE', { domainSeparator: usdc }, (e) => (e.deadline = String(e.deadline)))
  assertError(r.answer, 'INVALID_FORMAT', r.requestId, /message\.deadline/)
  r = await crafted(client, 'GET_FEES', { domainSeparator: usdc, amount: 1000, acquirerId: ZERO_BYTES16 }, () => {})
  assertError(r.answer, 'INVALID_FORMAT', r.requestId, /payload\.amount/)
  r = await crafted(client, 'GET_BALANCE', { domainSeparators: usdc }, () => {})
  assertError(r.answer, 'INVALID_FORMAT', r.requestId, /payload\.domainSeparators/)
  r = await crafted(client, 'GET_NONCE', { domainSeparator: '0x1234' }, () => {})
  assertError(r.answer, 'INVALID_FORMAT', r.requestId, /payload\.domainSeparator/)
  r = await crafted(client, 'GET_HISTORY', { domainSeparators: [usdc], limit: 0 }, () => {})
  assertError(r.answer, 'INVALID_FORMAT', r.requestId, /payload\.limit/)
  r = await crafted(client, 'TRANSFER_ALL', { domainSeparator: usdc }, () => {})
  assertError(r.answer, 'INVALID_FORMAT', r.requestId, /message\.type/)
  r = await crafted(client, 'GET_NONCE', { domainSeparator: usdc, extra: 1 }, () => {})
  assertError(r.answer, 'INVALID_FORMAT', r.requestId, /unknown field "extra"/)

  // An oversized message is not read at all, so its request id cannot be echoed.
  const oversized = await client.sign('GET_NONCE', { domainSeparator: usdc, padding: 'x'.repeat(70_000) })
  assertError(await nextAnswer(client, () => client.send(oversized)), 'INVALID_FORMAT', undefined, /at most 65536 bytes/)
  await stillAnswers(client)
})

test('authentication errors: expired deadline, bad v, tampered payload, unrecoverable signature, wrong signer; the connection stays', async () => {
  const [owner, other] = [f.payers[2]!, f.payers[3]!]
  const client = await f.connect(owner)
  const now = Math.floor(Date.now() / 1000)
  for (const deadline of [now - 60, now + 120]) {
    const answer = await client.request('GET_NONCE', { domainSeparator: usdc }, { deadline })
    assertError(answer, 'EXPIRED_DEADLINE', answer.requestId, /deadline/)
  }
  let r = await crafted(client, 'GET_NONCE', { domainSeparator: usdc }, (e) => (e.signature.v = 29))
  assertError(r.answer, 'INVALID_SIGNATURE', r.requestId, /signature\.v/)
  r = await crafted(client, 'GET_NONCE', { domainSeparator: usdc }, (e) => (e.payload.domainSeparator = eurc))
  assertError(r.answer, 'INVALID_SIGNATURE', r.requestId, /differs from what was signed/)
  r = await crafted(client, 'GET_NONCE', { domainSeparator: usdc }, (e) => (e.signature.hash = `0x${'ab'.repeat(32)}`))
  assertError(r.answer, 'INVALID_SIGNATURE', r.requestId)
  r = await crafted(client, 'GET_NONCE', { domainSeparator: usdc }, (e) => (e.signature.r = `0x${'00'.repeat(32)}`))
  assertError(r.answer, 'INVALID_SIGNATURE', r.requestId, /no signer/)

  const forged = await signedBy(other, owner.address.toLowerCase() as Hex, { requestId: 'forged', domainSeparator: usdc })
  assertError(await client.sendAndAnswer(forged), 'ADDRESS_MISMATCH', 'forged', new RegExp(`signed by ${other.address.toLowerCase()}`))
  await stillAnswers(client)

  // Bound to its first caller: a valid message signed by someone else is refused.
  const foreign = await client.request('GET_NONCE', { domainSeparator: usdc }, { account: other })
  assertError(foreign, 'ADDRESS_MISMATCH', foreign.requestId, /belongs to/)
  await stillAnswers(client)
})

test('UNSUPPORTED_TOKEN for an unknown domain separator, in any message, and for a payment in an unsupported token', async () => {
  const payer = f.payers[4]!
  const client = await f.connect(payer)
  const unknown = `0x${'12'.repeat(32)}`
  for (const [type, payload] of [
    ['GET_NONCE', { domainSeparator: unknown }],
    ['GET_FEES', { domainSeparator: unknown, amount: '10000000', acquirerId: ZERO_BYTES16 }],
    ['GET_BALANCE', { domainSeparators: [usdc, unknown] }],
    ['GET_HISTORY', { domainSeparators: [unknown] }],
    ['SUBSCRIBE_BALANCE', { domainSeparators: [unknown] }],
    ['SUBSCRIBE_TRANSFERS', { domainSeparators: [eurc, unknown] }],
  ] as const) {
    const answer = await client.request(type, payload)
    assertError(answer, 'UNSUPPORTED_TOKEN', answer.requestId, new RegExp(unknown))
  }
  const request = await f.signedPayment(payer, { token: f.tokens[0]! })
  request.payWithPermitParams.token = f.contract
  const answer = await client.request('SUBMIT_PAYMENT', { transferRequest: request })
  assertError(answer, 'UNSUPPORTED_TOKEN', answer.requestId)
})

test('SUBMIT_PAYMENT refusals: owner not the caller, wrong spender, a foreign signature, an expired permit, a used nonce', async () => {
  const [payer, other, used] = [f.payers[5]!, f.payers[6]!, f.payers[0]!]
  const client = await f.connect(payer)
  const token = f.tokens[0]!
  const submit = (transferRequest: unknown) => client.request('SUBMIT_PAYMENT', { transferRequest })

  let answer = await submit(await f.signedPayment(other, { token }))
  assertError(answer, 'ADDRESS_MISMATCH', answer.requestId, /owner/)

  const wrongSpender = await f.signedPayment(payer, { token })
  wrongSpender.payWithPermitParams.permitParams.spender = other.address
  answer = await submit(wrongSpender)
  assertError(answer, 'INVALID_FORMAT', answer.requestId, /spender/)

  const foreignBinding = await f.signedPayment(payer, { token })
  foreignBinding.payWithPermitSig = (await f.signedPayment(payer, { token })).payWithPermitSig
  answer = await submit(foreignBinding)
  assertError(answer, 'INVALID_SIGNATURE', answer.requestId, /binding signature/)
  const foreignPermit = await f.signedPayment(payer, { token })
  foreignPermit.permitSig = (await f.signedPayment(other, { token })).permitSig
  answer = await submit(foreignPermit)
  assertError(answer, 'INVALID_SIGNATURE', answer.requestId, /permit signature/)

  answer = await submit(await f.signedPayment(payer, { token, deadline: BigInt(Math.floor(Date.now() / 1000) - 5) }))
  assertError(answer, 'EXPIRED_DEADLINE', answer.requestId, /permit's deadline/)

  const usedClient = await f.connect(used)
  const stale = await usedClient.request('SUBMIT_PAYMENT', { transferRequest: await f.signedPayment(used, { token, nonce: 0n }) })
  assertError(stale, 'NONCE_MISMATCH', stale.requestId, /next nonce .* is 1/)
  await stillAnswers(client)
})

test('junk permits: a nonce past the token nonce plus the owner\'s queued ones is NONCE_MISMATCH; the per-owner and total (executable) queue caps refuse the rest', async () => {
  const capped = await f.startGateway({ GATEWAY_MAX_QUEUED_PER_OWNER: '3' })
  // Signatures cost nothing: an unfunded wallet nobody will ever pay for.
  const unfunded = privateKeyToAccount(generatePrivateKey())
  const client = await f.connect(unfunded, capped)
  const token = f.tokens[0]!
  const submit = async (wallet: GatewayTestClient, nonce: bigint) =>
    wallet.request('SUBMIT_PAYMENT', { transferRequest: await f.signedPayment(wallet.account, { token, nonce }) })

  let answer = await submit(client, 1000n)
  assertError(answer, 'NONCE_MISMATCH', answer.requestId, /ahead/)
  answer = await submit(client, 1n)
  assertError(answer, 'NONCE_MISMATCH', answer.requestId, /it is 0 with 0 queued payments in this token, so at most nonce 0/)
  for (const nonce of [0n, 1n, 2n]) assert.equal((await submit(client, nonce)).type, 'SUBMIT_PAYMENT_ACK', `nonce ${nonce}`)
  answer = await submit(client, 3n)
  assertError(answer, 'RATE_LIMIT_EXCEEDED', answer.requestId, /3 submissions queued/)

  // The total counts executable submissions only: an unfunded wallet's permits are future, a funded payer's is not.
  assert.equal((await submit(await f.connect(f.payers[14]!), 0n)).type, 'SUBMIT_PAYMENT_ACK')
  const { rows } = await f.db.pool.query<{ queued: number }>(`SELECT count(*)::int AS queued FROM submissions WHERE status IN ('ENQUEUING', 'PENDING', 'BROADCASTING') AND NOT future`)
  const full = await f.startGateway({ GATEWAY_MAX_QUEUED_TOTAL: String(rows[0]!.queued) })
  answer = await submit(await f.connect(f.payers[15]!, full), 0n)
  assertError(answer, 'RELAYER_UNAVAILABLE', answer.requestId, /queue is full/)
  assert.equal((await submit(await f.connect(privateKeyToAccount(generatePrivateKey()), full), 0n)).type, 'SUBMIT_PAYMENT_ACK', 'a future one is not refused by it')
  await stillAnswers(client)
})

test('ALREADY_SUBMITTED for a replayed payload id and for the same signed payment under another id', async () => {
  const payer = f.payers[7]!
  const client = await f.connect(payer)
  const request = await f.signedPayment(payer, { token: f.tokens[1]! })
  assert.equal((await client.request('SUBMIT_PAYMENT', { transferRequest: request })).type, 'SUBMIT_PAYMENT_ACK')
  let answer = await client.request('SUBMIT_PAYMENT', { transferRequest: request })
  assertError(answer, 'ALREADY_SUBMITTED', answer.requestId, new RegExp(request.payloadId))
  answer = await client.request('SUBMIT_PAYMENT', { transferRequest: { ...request, payloadId: 'another-id' } })
  assertError(answer, 'ALREADY_SUBMITTED', answer.requestId)
})

test('UNKNOWN_PAYLOAD_ID for an id never submitted and for another wallet submission', async () => {
  const [payer, other] = [f.payers[8]!, f.payers[9]!]
  const client = await f.connect(payer)
  let answer = await client.request('GET_SUBMISSION_STATUS', { payloadId: 'never-submitted' })
  assertError(answer, 'UNKNOWN_PAYLOAD_ID', answer.requestId)
  const request = await f.signedPayment(other, { token: f.tokens[0]! })
  const otherClient = await f.connect(other)
  assert.equal((await otherClient.request('SUBMIT_PAYMENT', { transferRequest: request })).type, 'SUBMIT_PAYMENT_ACK')
  answer = await client.request('GET_SUBMISSION_STATUS', { payloadId: request.payloadId })
  assertError(answer, 'UNKNOWN_PAYLOAD_ID', answer.requestId)
})

test('GET_FEES below the base fee or with an unregistered acquirer is refused with the reason', async () => {
  const client = await f.connect(f.payers[10]!)
  let answer = await client.request('GET_FEES', { domainSeparator: usdc, amount: '100', acquirerId: ZERO_BYTES16 })
  assertError(answer, 'INVALID_FORMAT', answer.requestId, /below the base fee/)
  answer = await client.request('GET_FEES', { domainSeparator: usdc, amount: '10000000', acquirerId: `0x${'77'.repeat(16)}`, amountIs: 'PRINCIPAL' })
  assertError(answer, 'INVALID_FORMAT', answer.requestId, /not a registered acquirer/)
})

test('RATE_LIMIT_EXCEEDED past the message budget; a client that keeps flooding is closed with 4008', async () => {
  const strict = await f.startGateway({ GATEWAY_MESSAGES_PER_SECOND: '1', GATEWAY_MESSAGE_BURST: '3', GATEWAY_ABUSE_THRESHOLD: '20' })
  const client = await f.connect(f.payers[11]!, strict)
  const envelopes = await Promise.all(Array.from({ length: 5 }, () => client.sign('GET_NONCE', { domainSeparator: usdc })))
  for (const envelope of envelopes) client.send(envelope)
  const answers = await Promise.all(envelopes.map((e) => client.answerTo(e.payload.requestId as string)))
  assert.equal(answers.filter((a) => a.type === 'NONCE_RESULT').length, 3)
  for (const limited of answers.slice(3)) assertError(limited, 'RATE_LIMIT_EXCEEDED', limited.requestId)
  assert.equal(client.closed, undefined)

  for (let i = 0; i < 40 && !client.closed; i++) client.sendRaw('flood')
  assert.equal((await client.waitClosed()).code, 4008)
})

test('a frame over the hard limit is cut by uWS; one between the limits is answered INVALID_FORMAT', async () => {
  const small = await f.startGateway({ GATEWAY_MAX_MESSAGE_BYTES: '1024' })
  const client = await f.connect(f.payers[12]!, small)
  assertError(await nextAnswer(client, () => client.sendRaw('x'.repeat(2000))), 'INVALID_FORMAT', undefined, /at most 1024 bytes/)
  await stillAnswers(client)
  client.sendRaw('x'.repeat(17 * 1024))
  assert.equal((await client.waitClosed()).code, 1006)
})

test('INTERNAL_ERROR when the history cannot be read (explorer unreachable); everything else still answers', async () => {
  const blind = await f.startGateway({ EXPLORER_URL: 'http://127.0.0.1:9' })
  const client = await f.connect(f.payers[13]!, blind)
  const answer = await client.request('GET_HISTORY', { domainSeparators: [usdc] })
  assertError(answer, 'INTERNAL_ERROR', answer.requestId, /history is unavailable/)
  await stillAnswers(client)
})
