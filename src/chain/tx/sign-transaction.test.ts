/** Native transaction signing gives viem's bytes exactly, and the key's address viem's, for random keys and transactions. */
import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { test } from 'node:test'
import { bytesToHex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { addressOfKey, createTransactionSigner } from './sign-transaction.js'

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

test('an invalid key is refused when the signer is made, and has no address', () => {
  assert.throws(() => createTransactionSigner(`0x${'00'.repeat(32)}`), /not a valid/)
  assert.throws(() => addressOfKey(`0x${'ff'.repeat(32)}`), /not a valid/)
})
