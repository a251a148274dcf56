/**
 * What the admin commands need to know about a Safe: that the address is one (code that answers a
 * Safe's reads), its owners, threshold and next nonce; and `execTransaction` with collected signatures,
 * each checked against the owners before any gas is spent.
 */
import { encodeFunctionData, zeroAddress, type Hex, type PublicClient } from 'viem'
import { packSafeSignatures, recoverSafeSigner, safeAbi, safeExecutionSuccessTopic, type SafeCall } from '../../chain/index.js'
import { createTxSender } from '../../chain/index.js'
import { FlagError } from '../../platform/cli/index.js'
import { BaseError } from '../../errors/index.js'

export interface SafeAccount {
  address: Hex
  version: string
  owners: Hex[]
  threshold: bigint
  nonce: bigint
}

/** The Safe at `address`, or undefined when it is an account or another kind of contract. */
export async function readSafe(publicClient: PublicClient, address: Hex): Promise<SafeAccount | undefined> {
  const code = await publicClient.getCode({ address })
  if (!code || code === '0x') return undefined
  try {
    const read = <name extends 'VERSION' | 'getOwners' | 'getThreshold' | 'nonce'>(functionName: name) => publicClient.readContract({ address, abi: safeAbi, functionName })
    const [version, owners, threshold, nonce] = await Promise.all([read('VERSION'), read('getOwners'), read('getThreshold'), read('nonce')])
    return { address, version, owners: owners.map((o) => o.toLowerCase() as Hex), threshold, nonce }
  } catch {
    return undefined
  }
}

/** Each signature recovered to an owner, no owner twice, at least `threshold` of them: else one line why. */
export async function checkSignatures(safe: SafeAccount, hash: Hex, signatures: Hex[]): Promise<{ signer: Hex; signature: Hex }[]> {
  const signed: { signer: Hex; signature: Hex }[] = []
  for (const [i, signature] of signatures.entries()) {
    const signer = await recoverSafeSigner(hash, signature)
    if (!safe.owners.includes(signer)) {
      throw new FlagError(`signature ${i + 1} recovers to ${signer}, not an owner of the Safe ${safe.address}: was it made for this transaction and Safe nonce ${safe.nonce}?`)
    }
    if (signed.some((s) => s.signer === signer)) throw new FlagError(`signatures ${signed.findIndex((s) => s.signer === signer) + 1} and ${i + 1} are both by ${signer}`)
    signed.push({ signer, signature })
  }
  if (BigInt(signed.length) < safe.threshold) {
    throw new FlagError(`the Safe ${safe.address} needs ${safe.threshold} owner signatures, got ${signed.length}`)
  }
  return signed
}

/** Submits the call through the Safe (gas paid by `privateKey`'s account) and waits for its outcome. */
export async function executeThroughSafe(params: {
  publicClient: PublicClient
  privateKey: Hex
  chainId: number
  safe: SafeAccount
  call: SafeCall
  signed: { signer: Hex; signature: Hex }[]
}): Promise<{ txHash: Hex; blockNumber: bigint }> {
  const { publicClient, safe, call } = params
  const data = encodeFunctionData({
    abi: safeAbi,
    functionName: 'execTransaction',
    args: [call.to, call.value, call.data, 0, 0n, 0n, 0n, zeroAddress, zeroAddress, packSafeSignatures(params.signed)],
  })
  const sender = await createTxSender({ publicClient, privateKey: params.privateKey, chainId: params.chainId })
  // A simulation first: a refusal (a wrong signature, an inner revert) reads as the Safe's reason, not as a spent transaction.
  await publicClient.call({ account: sender.address, to: safe.address, data })
  const txHash = await sender.send({ to: safe.address, data })
  const receipt = await publicClient.waitForTransactionReceipt({ hash: txHash })
  const executed = receipt.logs.some((log) => log.address.toLowerCase() === safe.address && log.topics[0] === safeExecutionSuccessTopic)
  if (receipt.status !== 'success' || !executed) throw new BaseError(`the Safe did not execute the call (transaction ${txHash})`, { details: { txHash } })
  return { txHash, blockNumber: receipt.blockNumber }
}
