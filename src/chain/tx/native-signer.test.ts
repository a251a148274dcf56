/** Native signing gives viem's bytes exactly, and the key's address viem's, for random keys, transactions and typed data. */
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { test } from 'node:test'
import { bytesToHex, keccak256 } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { addressOfKey, createTransactionSigner, nativeAccount } from './native-signer.js'

test('native signatures equal viem signTransaction byte for byte', async () => {
  for (let i = 0; i < 30; i++) {
    const key = generatePrivateKey()
    const tx = {
      type: 'eip1559',
      chainId: 1 + (i % 3) * 31336,
      nonce: i * 7919,
      to: bytesToHex(randomBytes(20)),
      data: bytesToHex(randomBytes(i * 13)),
      gas: 21_000n + BigInt(i) * 12_345n,
      value: 0n,
      maxFeePerGas: BigInt(bytesToHex(randomBytes(8))),
      maxPriorityFeePerGas: BigInt(i),
    } as const
    assert.equal(createTransactionSigner(key)(tx), await privateKeyToAccount(key).signTransaction(tx))
    assert.equal(addressOfKey(key), privateKeyToAccount(key).address.toLowerCase())
  }
})

test('the native account signs a hash, a message, typed data and a transaction as privateKeyToAccount does', async () => {
  for (let i = 0; i < 10; i++) {
    const key = generatePrivateKey()
    const native = nativeAccount(key)
    const viem = privateKeyToAccount(key)
    const typedData = {
      domain: { name: 'USD Coin', version: '2', chainId: 31337, verifyingContract: bytesToHex(randomBytes(20)) },
      types: { Permit: [{ name: 'owner', type: 'address' }, { name: 'value', type: 'uint256' }, { name: 'nonce', type: 'uint256' }] },
      primaryType: 'Permit',
      message: { owner: viem.address, value: BigInt(bytesToHex(randomBytes(12))), nonce: BigInt(i) },
    } as const
    const tx = { type: 'eip1559', chainId: 31337, nonce: i, to: viem.address, gas: 21_000n, maxFeePerGas: 10n, maxPriorityFeePerGas: 1n, value: 1n } as const
    const hash = keccak256(randomBytes(32))
    assert.equal(native.address, viem.address)
    assert.equal(await native.sign!({ hash }), await viem.sign({ hash }))
    assert.equal(await native.signMessage({ message: `message ${i}` }), await viem.signMessage({ message: `message ${i}` }))
    assert.equal(await native.signTypedData(typedData), await viem.signTypedData(typedData))
    assert.equal(await native.signTransaction(tx), await viem.signTransaction(tx))
  }
})

test('an invalid key is refused when the signer is made, and has no address', () => {
  assert.throws(() => createTransactionSigner(`0x${'00'.repeat(32)}`), /not a valid/)
  assert.throws(() => addressOfKey(`0x${'ff'.repeat(32)}`), /not a valid/)
  assert.throws(() => nativeAccount(`0x${'00'.repeat(32)}`), /not a valid/)
})
