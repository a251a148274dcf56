/**
 * The native signature recovery against viem's (the reference the gateway used before): the same signer,
 * or the same refusal, for valid signatures, flipped `v`, high s, out-of-range and off-curve r and s,
 * digests above the group order; `v` outside {0, 1, 27, 28} and malformed words recover to no signer.
 */
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { test } from 'node:test'
import { bytesToHex, numberToHex, recoverAddress, type Hex } from 'viem'
import { generatePrivateKey, privateKeyToAccount, sign } from 'viem/accounts'
import { recoverSigner, type SignatureParts } from '../../src/processor/gateway/input/recover-signer.js'

const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n
const word = (value: bigint) => numberToHex(value, { size: 32 })
const randomWord = () => bytesToHex(randomBytes(32))

async function viemSigner(digest: Hex, sig: SignatureParts): Promise<Hex | undefined> {
  try {
    return (await recoverAddress({ hash: digest, signature: { r: sig.r, s: sig.s, v: BigInt(sig.v < 27 ? sig.v + 27 : sig.v) } })).toLowerCase() as Hex
  } catch {
    return undefined
  }
}

async function signDigest(privateKey: Hex, hash: Hex) {
  const { r, s, yParity } = await sign({ hash, privateKey, to: 'object' })
  if (yParity === undefined) throw new Error('viem returned no yParity')
  return { r, s, yParity }
}

async function assertSame(digest: Hex, sig: SignatureParts, expected?: Hex | 'none') {
  const native = recoverSigner(digest, sig)
  assert.equal(native, await viemSigner(digest, sig), `digest ${digest} v ${sig.v} r ${sig.r} s ${sig.s}`)
  if (expected === 'none') assert.equal(native, undefined)
  else if (expected) assert.equal(native, expected)
}

test('valid signatures recover to their signer with v 0, 1, 27 or 28, and a flipped v recovers as viem does', async () => {
  for (let i = 0; i < 40; i++) {
    const key = generatePrivateKey()
    const signer = privateKeyToAccount(key).address.toLowerCase() as Hex
    const digest = randomWord()
    const { r, s, yParity } = await signDigest(key, digest)
    await assertSame(digest, { v: yParity, r, s }, signer)
    await assertSame(digest, { v: 27 + yParity, r, s }, signer)
    const flipped = await viemSigner(digest, { v: 1 - yParity, r, s })
    assert.notEqual(flipped, signer)
    await assertSame(digest, { v: 1 - yParity, r, s })
    await assertSame(digest, { v: 28 - yParity, r, s })
    // High s with the other parity is the same signature for ECDSA recovery (malleability): both accept it.
    const highS = word(N - BigInt(s))
    await assertSame(digest, { v: 1 - yParity, r, s: highS }, signer)
    await assertSame(digest, { v: yParity, r, s: highS })
  }
})

test('out-of-range and off-curve r and s, and a digest above the group order, give the same answer', async () => {
  const key = generatePrivateKey()
  const signer = privateKeyToAccount(key).address.toLowerCase() as Hex
  const big = word(2n ** 256n - 1n)
  const { r, s, yParity } = await signDigest(key, big)
  await assertSame(big, { v: yParity, r, s }, signer)
  for (const bad of [0n, N, N + 1n, 2n ** 256n - 1n]) {
    await assertSame(big, { v: yParity, r: word(bad), s }, 'none')
    await assertSame(big, { v: yParity, r, s: word(bad) }, 'none')
  }
  // About half of all r have no curve point with x = r.
  for (let i = 0; i < 20; i++) await assertSame(randomWord(), { v: i % 2, r: randomWord(), s: randomWord() })
  await assertSame(randomWord(), { v: 0, r: word(N - 1n), s: word(1n) })
})

test('v outside {0, 1, 27, 28} and malformed words recover to no signer', async () => {
  const key = generatePrivateKey()
  const digest = randomWord()
  const { r, s } = await signDigest(key, digest)
  for (const v of [2, 26, 29, 34, 35, 36, 255]) assert.equal(recoverSigner(digest, { v, r, s }), undefined, `v ${v}`)
  assert.equal(recoverSigner(digest, { v: 27, r: r.slice(0, -2) as Hex, s }), undefined)
  assert.equal(recoverSigner(digest, { v: 27, r, s: `${s}00` as Hex }), undefined)
  assert.equal(recoverSigner('0x1234', { v: 27, r, s }), undefined)
})
