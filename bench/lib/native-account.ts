/**
 * A viem LocalAccount that signs with libsecp256k1 (the `secp256k1` package the gateway and submitter
 * use): the signatures of `privateKeyToAccount` (RFC 6979, low s) for a fraction of the CPU. The gateway
 * section's load generators — wallets and the direct sender's payers alike — sign with it, so the two
 * cores go to what is measured rather than to simulating wallets; `checkNativeAccount` compares it with
 * viem before a run uses it.
 */
import secp256k1 from 'secp256k1'
import { bytesToHex, hashMessage, hashTypedData, keccak256, serializeSignature, serializeTransaction, type Hex, type LocalAccount } from 'viem'
import { privateKeyToAccount, privateKeyToAddress, toAccount } from 'viem/accounts'

export function nativeAccount(privateKey: Hex): LocalAccount {
  const key = Buffer.from(privateKey.slice(2), 'hex')
  const signHash = (hash: Hex) => {
    const { signature, recid } = secp256k1.ecdsaSign(Buffer.from(hash.slice(2), 'hex'), key)
    return { r: bytesToHex(signature.subarray(0, 32)), s: bytesToHex(signature.subarray(32)), yParity: recid }
  }
  return toAccount({
    address: privateKeyToAddress(privateKey),
    sign: async ({ hash }) => serializeSignature(signHash(hash)),
    signMessage: async ({ message }) => serializeSignature(signHash(hashMessage(message))),
    signTransaction: async (transaction, options) => {
      const serializer = options?.serializer ?? serializeTransaction
      return serializer(transaction, signHash(keccak256(await serializer(transaction))))
    },
    signTypedData: async (typedData) => serializeSignature(signHash(hashTypedData(typedData))),
  })
}

/** Throws unless the native account signs a digest, typed data and a transaction exactly as viem does. */
export async function checkNativeAccount(privateKey: Hex): Promise<void> {
  const native = nativeAccount(privateKey)
  const viem = privateKeyToAccount(privateKey)
  const hash = keccak256('0x1234')
  const typedData = {
    domain: { name: 'check', version: '1', chainId: 1 },
    types: { Check: [{ name: 'value', type: 'uint256' }] },
    primaryType: 'Check',
    message: { value: 42n },
  } as const
  const tx = { type: 'eip1559', chainId: 31337, nonce: 7, to: viem.address, gas: 21_000n, maxFeePerGas: 10n, maxPriorityFeePerGas: 1n, value: 1n } as const
  const pairs = [
    [await native.sign!({ hash }), await viem.sign({ hash })],
    [await native.signTypedData(typedData), await viem.signTypedData(typedData)],
    [await native.signTransaction(tx), await viem.signTransaction(tx)],
  ]
  if (native.address !== viem.address || pairs.some(([a, b]) => a !== b)) throw new Error('the native account does not sign as viem does')
}
