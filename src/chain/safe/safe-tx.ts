/**
 * A Safe transaction as its owners sign it: the EIP-712 `SafeTx` over a plain call (no refund, no gas
 * token), its hash for a given Safe nonce, and the owners' signatures checked, ordered and packed the way
 * `execTransaction` expects them (ascending signer address, 65 bytes each).
 */
import { BaseError } from '../../errors/index.js'
import { concatHex, hashTypedData, hexToNumber, recoverAddress, sliceHex, toHex, hashMessage, zeroAddress, type Hex } from 'viem'

export interface SafeCall {
  to: Hex
  value: bigint
  data: Hex
}

export const safeTxTypes = {
  SafeTx: [
    { name: 'to', type: 'address' },
    { name: 'value', type: 'uint256' },
    { name: 'data', type: 'bytes' },
    { name: 'operation', type: 'uint8' },
    { name: 'safeTxGas', type: 'uint256' },
    { name: 'baseGas', type: 'uint256' },
    { name: 'gasPrice', type: 'uint256' },
    { name: 'gasToken', type: 'address' },
    { name: 'refundReceiver', type: 'address' },
    { name: 'nonce', type: 'uint256' },
  ],
} as const

/** The typed data an owner signs (eth_signTypedData_v4, a hardware wallet, `cast wallet sign --data`). */
export function safeTxTypedData(safe: Hex, chainId: number, call: SafeCall, nonce: bigint) {
  return {
    domain: { chainId, verifyingContract: safe },
    types: safeTxTypes,
    primaryType: 'SafeTx' as const,
    message: {
      ...call,
      // A plain call paid by whoever submits it: no delegatecall, no refund.
      operation: 0,
      safeTxGas: 0n,
      baseGas: 0n,
      gasPrice: 0n,
      gasToken: zeroAddress,
      refundReceiver: zeroAddress,
      nonce,
    },
  }
}

export function safeTxHash(safe: Hex, chainId: number, call: SafeCall, nonce: bigint): Hex {
  return hashTypedData(safeTxTypedData(safe, chainId, call, nonce))
}

/** A signature that does not come from a key over this hash (malformed, or a different transaction). */
export class SafeSignatureError extends BaseError {
  override name = 'SafeSignatureError'
}

/**
 * The signer of one owner signature: v 27/28 signs the hash itself (EIP-712), v 31/32 signs it as an
 * `eth_sign` message (what some hardware wallets offer), as the Safe itself tells them apart.
 */
export async function recoverSafeSigner(hash: Hex, signature: Hex): Promise<Hex> {
  if (!/^0x[0-9a-fA-F]{130}$/.test(signature)) throw new SafeSignatureError(`signature "${signature}" is not 65 bytes of hex`)
  const v = hexToNumber(sliceHex(signature, 64, 65))
  if (v === 27 || v === 28) return (await recoverAddress({ hash, signature })).toLowerCase() as Hex
  if (v === 31 || v === 32) {
    const plain = concatHex([sliceHex(signature, 0, 64), toHex(v - 4, { size: 1 })])
    return (await recoverAddress({ hash: hashMessage({ raw: hash }), signature: plain })).toLowerCase() as Hex
  }
  throw new SafeSignatureError(`signature v = ${v}: expected 27/28 (typed data) or 31/32 (eth_sign)`)
}

/** Owner signatures packed for `execTransaction`: sorted by signer, as the Safe checks them in order. */
export function packSafeSignatures(signed: readonly { signer: Hex; signature: Hex }[]): Hex {
  const sorted = [...signed].sort((a, b) => (BigInt(a.signer) < BigInt(b.signer) ? -1 : 1))
  return concatHex(sorted.map((s) => s.signature))
}
