/**
 * The cached EIP-712 hashers against viem's hashTypedData: envelopes of any type string, binding
 * digests of payments and acquiring packs, and permits, over random values and the edges of uint256;
 * a malformed field is refused rather than hashed; an envelope signed through its digest carries the
 * signature signTypedData gives, and an account without raw signing still signs.
 */
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { test } from 'node:test'
import { bytesToHex, hashTypedData, parseSignature, type Hex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { bindingDigest, permitDigest, type PaymentIntent } from '../../src/wire/payment-request.js'
import { typedDataHasher, domainSeparator } from '../../src/wire/typed-data-hasher.js'
import { buyAcquiringPackTypes, payWithPermitTypes, permitTypes, settlementDomain, type TokenDomain } from '../../src/wire/typed-data.js'
import { envelopeDigest, gatewayDomain, gatewayMessageTypes, payloadHash, signEnvelope } from '../../src/wire/envelope.js'

const address = () => bytesToHex(randomBytes(20))
const word = () => bytesToHex(randomBytes(32))
const uint = () => [0n, 1n, 2n ** 256n - 1n, BigInt(word())][Math.floor(Math.random() * 4)]!

function intent(kind: PaymentIntent['kind']): PaymentIntent {
  const owner = address()
  return {
    kind,
    payloadId: 'p',
    token: address(),
    owner,
    permit: { owner, spender: address(), value: uint(), nonce: uint(), deadline: uint() },
    bindingSig: { v: 27, r: word(), s: word() },
    permitSig: { v: 28, r: word(), s: word() },
    beneficiary: address(),
    ref: word(),
    feeValue: uint(),
  }
}

test('envelope digests equal hashTypedData for any type string and chain', () => {
  for (const chainId of [1, 31337, 2 ** 40]) {
    for (const type of ['GET_NONCE', 'SUBMIT_PAYMENT', 'UNSUBSCRIBE', 'ANY TEXT ✓', '']) {
      const fields = { type, callerAddress: address(), deadline: Math.floor(Math.random() * 2 ** 40), payload: { requestId: '7', nested: { list: [1, 'two'] }, text: 'é ✓' } }
      const expected = hashTypedData({
        domain: gatewayDomain(chainId),
        types: gatewayMessageTypes,
        primaryType: 'GatewayMessage',
        message: { type, callerAddress: fields.callerAddress, deadline: BigInt(fields.deadline), payloadHash: payloadHash(fields.payload) },
      })
      assert.equal(envelopeDigest(chainId, fields), expected)
    }
  }
})

test('binding and permit digests equal hashTypedData for payments and acquiring packs', () => {
  for (let i = 0; i < 50; i++) {
    const chainId = 1 + Math.floor(Math.random() * 100_000)
    const contract = address()
    const payment = intent('PAYMENT')
    const acquiring = intent('ACQUIRING')
    const domain = settlementDomain(chainId, contract)
    const expected = [
      hashTypedData({
        domain,
        types: payWithPermitTypes,
        primaryType: 'PayWithPermitParams',
        message: { token: payment.token, beneficiary: payment.beneficiary, ref: payment.ref, permitParams: payment.permit },
      }),
      hashTypedData({
        domain,
        types: buyAcquiringPackTypes,
        primaryType: 'BuyAcquiringPackPermitParams',
        message: { token: acquiring.token, feeValue: acquiring.feeValue, acquiring: acquiring.beneficiary, permitParams: acquiring.permit },
      }),
    ]
    assert.deepEqual([bindingDigest(payment, chainId, contract), bindingDigest(acquiring, chainId, contract)], expected)
    const tokenDomain: TokenDomain = { name: `Token ${i} ✓`, version: String(i % 3), chainId, verifyingContract: payment.token }
    assert.equal(permitDigest(payment, tokenDomain), hashTypedData({ domain: tokenDomain, types: permitTypes, primaryType: 'Permit', message: payment.permit }))
  }
})

test('a malformed or out-of-range field is refused, not hashed', () => {
  const hash = typedDataHasher(permitTypes, 'Permit')
  const separator = domainSeparator({ name: 'T', version: '1', chainId: 1, verifyingContract: address() })
  const permit = { owner: address(), spender: address(), value: 1n, nonce: 0n, deadline: 1n }
  assert.match(hash(separator, permit), /^0x[0-9a-f]{64}$/)
  for (const bad of [{ value: -1n }, { value: 2n ** 256n }, { owner: '0x1234' as Hex }, { spender: undefined }, { nonce: 1.5 }]) {
    assert.throws(() => hash(separator, { ...permit, ...bad }), /invalid value/)
  }
})

test('signEnvelope signs the digest: the signature signTypedData gives, also for an account that only signs typed data', async () => {
  const account = privateKeyToAccount(generatePrivateKey())
  const payload = { requestId: '1', domainSeparator: word() }
  const envelope = await signEnvelope({ account, chainId: 31337, type: 'GET_NONCE', payload, deadline: 1_900_000_000 })
  const typed = await account.signTypedData({
    domain: gatewayDomain(31337),
    types: gatewayMessageTypes,
    primaryType: 'GatewayMessage',
    message: { type: 'GET_NONCE', callerAddress: envelope.callerAddress, deadline: 1_900_000_000n, payloadHash: payloadHash(payload) },
  })
  const { r, s, yParity } = parseSignature(typed)
  assert.deepEqual(envelope.signature, { hash: envelopeDigest(31337, envelope), v: 27 + yParity, r, s })
  const typedOnly = await signEnvelope({ account: { ...account, sign: undefined }, chainId: 31337, type: 'GET_NONCE', payload, deadline: 1_900_000_000 })
  assert.deepEqual(typedOnly, envelope)
})
