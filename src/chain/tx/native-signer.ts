/**
 * A local key's signatures in libsecp256k1 (the `secp256k1` package's native binding, as in the gateway's
 * recover-signer.ts): the same bytes as viem's pure-JavaScript signing — RFC 6979 nonces, low s — at a
 * tenth of the CPU, and the key's address without viem's first scalar multiplication, which builds its
 * precomputed tables (~100 ms of a fresh process's CPU). native-signer.test.ts compares each with viem's.
 */
import secp256k1 from 'secp256k1'
import { bytesToHex, getAddress, hashMessage, hashTypedData, keccak256, serializeSignature, serializeTransaction, type Hex, type LocalAccount, type TransactionSerializableEIP1559 } from 'viem'
import { toAccount } from 'viem/accounts'
import { ConfigError } from '../../config/index.js'

export type TransactionSigner = (tx: TransactionSerializableEIP1559) => Hex

export function createTransactionSigner(privateKey: Hex): TransactionSigner {
  const signHash = hashSigner(privateKey)
  return (tx) => serializeTransaction(tx, signHash(keccak256(serializeTransaction(tx))))
}

/** The key's address, lower case: the last 20 bytes of the keccak of its uncompressed public key. */
export function addressOfKey(privateKey: Hex): Hex {
  const publicKey = secp256k1.publicKeyCreate(keyBytes(privateKey), false)
  return `0x${keccak256(publicKey.subarray(1)).slice(-40)}`
}

/** A viem LocalAccount for the key, as `privateKeyToAccount` gives (its address checksummed), signing natively. */
export function nativeAccount(privateKey: Hex): LocalAccount {
  const signHash = hashSigner(privateKey)
  return toAccount({
    address: getAddress(addressOfKey(privateKey)),
    sign: async ({ hash }) => serializeSignature(signHash(hash)),
    signMessage: async ({ message }) => serializeSignature(signHash(hashMessage(message))),
    signTransaction: async (transaction, options) => {
      const serializer = options?.serializer ?? serializeTransaction
      return serializer(transaction, signHash(keccak256(await serializer(transaction))))
    },
    signTypedData: async (typedData) => serializeSignature(signHash(hashTypedData(typedData))),
  })
}

function hashSigner(privateKey: Hex): (hash: Hex) => { r: Hex; s: Hex; yParity: number } {
  const key = keyBytes(privateKey)
  return (hash) => {
    const { signature, recid } = secp256k1.ecdsaSign(Buffer.from(hash.slice(2), 'hex'), key)
    return { r: bytesToHex(signature.subarray(0, 32)), s: bytesToHex(signature.subarray(32)), yParity: recid }
  }
}

function keyBytes(privateKey: Hex): Buffer {
  const key = Buffer.from(privateKey.slice(2), 'hex')
  if (!secp256k1.privateKeyVerify(key)) throw new ConfigError('the key is not a valid secp256k1 private key')
  return key
}
