/**
 * The relayer's transaction signature in libsecp256k1 (the `secp256k1` package's native binding, as in
 * recover-signer.ts): the same bytes as viem's pure-JavaScript `signTransaction` — RFC 6979 nonces, low
 * s — at a tenth of the CPU (test/submitter/sign-transaction.test.ts compares them).
 */
import secp256k1 from 'secp256k1'
import { bytesToHex, keccak256, serializeTransaction, type Hex, type TransactionSerializableEIP1559 } from 'viem'

export type TransactionSigner = (tx: TransactionSerializableEIP1559) => Hex

export function createTransactionSigner(privateKey: Hex): TransactionSigner {
  const key = Buffer.from(privateKey.slice(2), 'hex')
  if (!secp256k1.privateKeyVerify(key)) throw new Error('the relayer key is not a valid secp256k1 private key')
  return (tx) => {
    const hash = keccak256(serializeTransaction(tx))
    const { signature, recid } = secp256k1.ecdsaSign(Buffer.from(hash.slice(2), 'hex'), key)
    return serializeTransaction(tx, { r: bytesToHex(signature.subarray(0, 32)), s: bytesToHex(signature.subarray(32)), yParity: recid })
  }
}
