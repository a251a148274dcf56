/**
 * The owner operations of `npm run admin`, in three ways: sent at once with ADMIN_PRIVATE_KEY when that
 * key is the sender the contract expects; proposed (`--propose`, or by itself when the sender is a
 * contract or no key is given) as raw calldata, a Safe Transaction Builder batch file and the Safe
 * transaction hash; or executed through the Safe (`--execute`) with its owners' collected signatures.
 */
import type { Hex, PublicClient } from 'viem'
import { addressOfKey, createTxSender, safeTxHash } from '../../chain/index.js'
import { LOCAL_CHAIN_ID, localDeployerKey, privateKeySetting, type Env } from '../../config/index.js'
import { addressFlag, amountFlag, FlagError, formatTable } from '../../platform/cli/index.js'
import type { Deployment } from '../../wire/index.js'
import { ownerOperation, type OwnerCommand, type OwnerOperation } from './owner-operations.js'
import { buildProposal, describeProposal, proposalJson, writeProposalBatch } from './proposal.js'
import { checkSignatures, executeThroughSafe, readSafe } from './safe-account.js'
import { BaseError } from '../../errors/index.js'

export const ownerCommandOptions = {
  propose: { type: 'boolean' },
  execute: { type: 'boolean' },
  safe: { type: 'string' },
  nonce: { type: 'string' },
  signatures: { type: 'string' },
  out: { type: 'string' },
} as const

export const ownerCommandUsage = `Owner operations (each also takes --propose or --execute):
  set-base-fee <amount>         setBaseFeeAmount
  set-acquiring-price <amount>  setAcquiringPrice
  set-max-acquiring-fee <bps>   setMaxAcquiringFee, in basis points (500 = 5.00 %; at most 10000)
  set-fee-recipient <address>   setFeeRecipient (future fees only)
  allow-token <address>         addAcquiringAllowedToken (acquiring packs payable in it)
  withdraw <token> <amount>     withdraw from the sender's internal balance; token = symbol or address
  transfer-ownership <address>  transferOwnership: names the pending owner (step 1 of 2)
  accept-ownership              acceptOwnership, sent by the pending owner (step 2 of 2)
  sign-safe-tx <proposal file>  sign a proposal's Safe transaction with ADMIN_PRIVATE_KEY (an owner): rebuilt
                                from the file (the batch file with --nonce, or the --json output), shown
                                with its change, signed as EIP-712 SafeTx; the signature on stdout

  --propose                     do not send: print the call (to, value, data), the change (current and new
                                values) and, when the sender is a Safe, the Safe transaction hash; write a
                                Safe Transaction Builder batch file (--out, default .data/proposals/<command>[.nonce-N].safe-batch.json).
                                Automatic when the sender is a contract or no ADMIN_PRIVATE_KEY is set
  --safe <address>              the Safe that sends it (default: the owner, when the owner is a Safe; for
                                withdraw, the Safe whose balance it is)
  --nonce <n>                   the Safe nonce to propose at (default: the Safe's next)
  --execute --signatures <sig>,<sig>...
                                submit through the Safe with its owners' signatures of the Safe transaction
                                hash; ADMIN_PRIVATE_KEY pays the gas (any funded account)`

interface OwnerValues {
  propose?: boolean
  execute?: boolean
  safe?: string
  nonce?: string
  signatures?: string
  out?: string
  json?: boolean
}

export interface OwnerCommandContext {
  publicClient: PublicClient
  deployment: Deployment
  env: Env
}

export async function runOwnerCommand(command: OwnerCommand, args: string[], values: OwnerValues, ctx: OwnerCommandContext): Promise<void> {
  const { publicClient, deployment, env } = ctx
  const chainId = deployment.chainId
  if (values.propose && values.execute) throw new FlagError('--propose and --execute exclude each other: propose first, execute with the signatures')
  // On the local chain the deployer key stands in, as for every other admin command.
  const keyGiven = Boolean(env.ADMIN_PRIVATE_KEY?.trim()) || chainId === LOCAL_CHAIN_ID
  const adminKey = () => privateKeySetting(env, 'ADMIN_PRIVATE_KEY', chainId, localDeployerKey)
  const keyAddress = keyGiven ? addressOfKey(adminKey()) : undefined
  const safeFlag = values.safe === undefined ? undefined : addressFlag(values.safe, '--safe')

  const op = await ownerOperation(command, args, { publicClient, deployment, holder: command === 'withdraw' ? (safeFlag ?? keyAddress) : undefined })
  if (safeFlag && safeFlag !== op.sender) {
    throw new FlagError(`the Safe ${safeFlag} is not the ${op.role} of ${op.to} (the ${op.role} is ${op.sender}): it cannot ${op.functionName}`)
  }
  const safe = await readSafe(publicClient, op.sender)
  if (safeFlag && !safe) throw new FlagError(`${safeFlag} is not a Safe (no Safe answers at that address)`)
  const nonce = values.nonce === undefined ? safe?.nonce : amountFlag(values.nonce, 'nonce')
  if (safe && nonce !== undefined && nonce < safe.nonce) throw new FlagError(`Safe nonce ${nonce} is already used: the Safe's next nonce is ${safe.nonce}`)

  if (values.execute) {
    if (!safe) throw new FlagError(`--execute goes through a Safe, and the ${op.role} ${op.sender} is not one: send the call from it directly`)
    if (!values.signatures) throw new FlagError('--execute needs --signatures <signature>,<signature>... (the owners\' signatures of the Safe transaction hash)')
    const call = { to: op.to, value: op.value, data: op.data }
    const hash = safeTxHash(safe.address, chainId, call, nonce ?? safe.nonce)
    if (nonce !== safe.nonce) throw new FlagError(`the Safe executes nonce ${safe.nonce} next, not ${nonce}: execute the earlier proposals first`)
    const signed = await checkSignatures(safe, hash, values.signatures.split(',').map((s) => s.trim() as Hex))
    const { txHash, blockNumber } = await executeThroughSafe({ publicClient, privateKey: adminKey(), chainId, safe, call, signed })
    console.log(`admin: the Safe ${safe.address} executed ${op.functionName} in ${txHash} (block ${blockNumber})`)
    return printChanges(op)
  }

  const senderCode = safe ? '0x1' : await publicClient.getCode({ address: op.sender })
  if (values.propose || !keyGiven || (senderCode !== undefined && senderCode !== '0x')) {
    const out = values.out ?? `.data/proposals/${command}${safe ? `.nonce-${nonce}` : ''}.safe-batch.json`
    const proposal = buildProposal(op, chainId, out, safe, nonce)
    writeProposalBatch(proposal)
    console.log(values.json ? proposalJson(proposal) : describeProposal(proposal, [command, ...args].join(' ')))
    return
  }

  if (keyAddress !== op.sender) {
    throw new FlagError(`ADMIN_PRIVATE_KEY's account ${keyAddress} is not the ${op.role} of ${op.to} (${op.sender}): use --propose to prepare the call for ${op.sender}`)
  }
  const sender = await createTxSender({ publicClient, privateKey: adminKey(), chainId })
  const hash = await sender.send({ to: op.to, data: op.data })
  const receipt = await publicClient.waitForTransactionReceipt({ hash })
  if (receipt.status !== 'success') throw new BaseError(`transaction ${hash} reverted`, { details: { txHash: hash } })
  console.log(`admin: done in ${hash} (block ${receipt.blockNumber})`)
  printChanges(op)
}

function printChanges(op: OwnerOperation): void {
  console.log(formatTable(op.changes.map((c) => [c.setting, `${c.current} -> ${c.next}`])))
}
