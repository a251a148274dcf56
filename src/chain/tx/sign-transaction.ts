/**
 * A local key's transaction signatures in libsecp256k1 (the `secp256k1` package's native binding, as in
 * the gateway's recover-signer.ts): the same bytes as viem's pure-JavaScript `signTransaction` — RFC 6979
 * nonces, low s — at a tenth of the CPU, and the key's address without viem's first scalar
 * multiplication, which builds its precomputed tables (~150 ms of a fresh process's CPU).
 * sign-transaction.test.ts compares both with viem's.
 */
import secp256k1 from 'secp256k1'
import { bytesToHex, keccak256, serializeTransaction, type Hex, type TransactionSerializableEIP1559 } from 'viem'

export type TransactionSigner = (tx: TransactionSerializableEIP1559) => Hex

export function createTransactionSigner(privateKey: Hex): TransactionSigner {
  const key = keyBytes(privateKey)
  return (tx) => {
    const hash = keccak256(serializeTransaction(tx))
    const { signature, recid } = secp256k1.ecdsaSign(Buffer.from(hash.slice(2), 'hex'), key)
    return serializeTransaction(tx, { r: bytesToHex(signature.subarray(0, 32)), s: bytesToHex(signature.subarray(32)), yParity: recid })
  }
}

/** The key's address, lower case: the last 20 bytes of the keccak of its uncompressed public key. */
export function addressOfKey(privateKey: Hex): Hex {
  const publicKey = secp256k1.publicKeyCreate(keyBytes(privateKey), false)
  return `0x${keccak256(publicKey.subarray(1)).slice(-40)}`
}

function keyBytes(privateKey: Hex): Buffer {
  const key = Buffer.from(privateKey.slice(2), 'hex')
  if (!secp256k1.privateKeyVerify(key)) throw new Error('the key is not a valid secp256k1 private key')
  return key
}
