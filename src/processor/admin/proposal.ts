/**
 * A proposal: an owner operation as an unsigned call for whoever must approve it. Raw calldata (target,
 * value, data) for a hardware wallet or any signer; with a Safe, the SafeTx its owners sign, its hash at
 * the given Safe nonce, and a Safe Transaction Builder batch file; and a human summary of the change.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { dirname } from 'node:path'
import type { Hex } from 'viem'
import { safeTxHash, safeTxTypedData, txBuilderBatch, type TxBuilderBatch } from '../../chain/index.js'
import { formatTable } from '../../platform/cli/index.js'
import type { OwnerOperation } from './owner-operations.js'
import type { SafeAccount } from './safe-account.js'

export interface Proposal {
  command: string
  chainId: number
  /** The call itself: what a hardware wallet (or the Safe) sends. */
  to: Hex
  value: string
  data: Hex
  functionName: string
  /** Who the contract must see as the sender, and in which role. */
  from: Hex
  role: string
  changes: { setting: string; current: string; next: string }[]
  safe?: { address: Hex; version: string; owners: Hex[]; threshold: string; nonce: string; safeTxHash: Hex; typedData: unknown }
  batchFile: string
  batch: TxBuilderBatch
}

export function buildProposal(op: OwnerOperation, chainId: number, batchFile: string, safe?: SafeAccount, nonce?: bigint): Proposal {
  const call = { to: op.to, value: op.value, data: op.data }
  const safeNonce = nonce ?? safe?.nonce ?? 0n
  const description = op.changes.map((c) => `${c.setting}: ${c.current} -> ${c.next}`).join('; ')
  return {
    command: op.command,
    chainId,
    to: op.to,
    value: op.value.toString(),
    data: op.data,
    functionName: op.functionName,
    from: op.sender,
    role: op.role,
    changes: op.changes,
    ...(safe && {
      safe: {
        address: safe.address,
        version: safe.version,
        owners: safe.owners,
        threshold: safe.threshold.toString(),
        nonce: safeNonce.toString(),
        safeTxHash: safeTxHash(safe.address, chainId, call, safeNonce),
        typedData: safeTxTypedData(safe.address, chainId, call, safeNonce),
      },
    }),
    batchFile,
    batch: txBuilderBatch({
      chainId,
      safe: safe?.address ?? op.sender,
      name: `${op.command} on ${op.to}`,
      description,
      calls: [{ ...call, method: op.method, args: op.args }],
    }),
  }
}

export function writeProposalBatch(proposal: Proposal): void {
  mkdirSync(dirname(proposal.batchFile), { recursive: true })
  writeFileSync(proposal.batchFile, `${JSON.stringify(proposal.batch, null, 2)}\n`)
}

/** JSON for scripts: bigints as decimal strings. */
export function proposalJson(proposal: Proposal): string {
  return JSON.stringify(proposal, (_, v: unknown) => (typeof v === 'bigint' ? v.toString() : v), 2)
}

/** The proposal as an operator reads it, ending with what to do next. */
export function describeProposal(proposal: Proposal, rerun: string): string {
  const lines = [
    `proposal: ${proposal.command} (${proposal.functionName}) on chain ${proposal.chainId}, sent by the ${proposal.role} ${proposal.from}`,
    '',
    formatTable([['change', 'current', 'new'], ...proposal.changes.map((c) => [c.setting, c.current, c.next])], { header: true }),
    '',
    formatTable([
      ['to', proposal.to],
      ['value', proposal.value],
      ['data', proposal.data],
    ]),
  ]
  const { safe } = proposal
  if (safe) {
    lines.push(
      '',
      formatTable([
        ['Safe', `${safe.address} (version ${safe.version}, ${safe.threshold} of ${safe.owners.length} owners)`],
        ['Safe nonce', safe.nonce],
        ['Safe transaction hash', safe.safeTxHash],
        ['batch file', proposal.batchFile],
      ]),
      '',
      `Next: load the batch file in the Safe's Transaction Builder, or have ${safe.threshold} owners sign the Safe transaction`,
      `(EIP-712 SafeTx; with a local key: npm run admin -- sign-safe-tx ${proposal.batchFile} --nonce ${safe.nonce}), then:`,
      `  npm run admin -- ${rerun} --execute --nonce ${safe.nonce} --signatures <signature>,<signature>`,
    )
  } else {
    lines.push('', `batch file: ${proposal.batchFile}`, '', `Next: send the call above from ${proposal.from} (a hardware wallet signs "to", "value" and "data" as they are).`)
  }
  return lines.join('\n')
}
