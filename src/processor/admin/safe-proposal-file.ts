/**
 * The Safe transaction a proposal file describes, read field by field: what `sign-safe-tx` rebuilds and
 * signs. Two files qualify, both written by a proposal (proposal.ts): its `--json` output (which holds
 * the batch, the Safe nonce and the hash it printed) and its Safe Transaction Builder batch file (which
 * holds no nonce: `--nonce` gives it). Only a single call without value passes: that is what every owner
 * operation proposes, and what the signer is then shown decoded.
 */
import { readFileSync } from 'node:fs'
import type { Hex } from 'viem'
import type { SafeCall } from '../../chain/index.js'
import { addressFlag, amountFlag, FlagError } from '../../platform/cli/index.js'

export interface SafeProposal {
  chainId: number
  safe: Hex
  nonce: bigint
  call: SafeCall
  /** The Safe transaction hash the proposal printed (its `--json` form only), to be checked against the rebuilt one. */
  statedHash?: Hex
}

type Json = Record<string, unknown>
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value)

export function readSafeProposal(path: string, nonceFlag: string | undefined): SafeProposal {
  let file: unknown
  try {
    file = JSON.parse(readFileSync(path, 'utf8'))
  } catch (error) {
    throw new FlagError(`cannot read the proposal file "${path}": ${(error as Error).message}`, { cause: error })
  }
  const refuse = (why: string): never => {
    throw new FlagError(`"${path}" is not a proposal's batch file or --json output: ${why}`)
  }
  if (!isObject(file)) return refuse('not a JSON object')
  const proposal = isObject(file.batch) ? file : undefined
  const batch = proposal ? (file.batch as Json) : file
  const stated = proposal && isObject(proposal.safe) ? proposal.safe : undefined
  if (!Array.isArray(batch.transactions) || !isObject(batch.meta)) return refuse('it has no "transactions" and "meta"')
  if (batch.transactions.length !== 1) return refuse(`it holds ${batch.transactions.length} transactions; a proposal holds one call`)
  const tx = batch.transactions[0] as unknown
  if (!isObject(tx) || typeof tx.to !== 'string' || typeof tx.data !== 'string' || !/^0x([0-9a-fA-F]{2})*$/.test(tx.data)) return refuse('its transaction lacks "to" or "data"')
  if (typeof batch.chainId !== 'string' || !/^\d+$/.test(batch.chainId)) return refuse('"chainId" is not a decimal string')
  if (typeof tx.value !== 'string' || !/^\d+$/.test(tx.value)) return refuse('its transaction\'s "value" is not a decimal string')
  const value = BigInt(tx.value)
  if (value !== 0n) return refuse(`the call sends ${value} wei; an owner operation sends none`)

  const fileNonce = typeof stated?.nonce === 'string' ? amountFlag(stated.nonce, 'nonce') : undefined
  const flagNonce = nonceFlag === undefined ? undefined : amountFlag(nonceFlag, 'nonce')
  if (fileNonce !== undefined && flagNonce !== undefined && fileNonce !== flagNonce) {
    throw new FlagError(`--nonce ${flagNonce} differs from the proposal's Safe nonce ${fileNonce}`)
  }
  const nonce = flagNonce ?? fileNonce
  if (nonce === undefined) throw new FlagError(`a batch file does not hold the Safe nonce: add --nonce <n>, the nonce the proposal printed`)
  const statedHash = typeof stated?.safeTxHash === 'string' ? (stated.safeTxHash.toLowerCase() as Hex) : undefined
  return {
    chainId: Number(batch.chainId),
    safe: addressFlag(String(batch.meta.createdFromSafeAddress), 'the batch\'s Safe (meta.createdFromSafeAddress)'),
    nonce,
    call: { to: addressFlag(tx.to, 'the call\'s "to"'), value, data: tx.data.toLowerCase() as Hex },
    ...(statedHash && { statedHash }),
  }
}
