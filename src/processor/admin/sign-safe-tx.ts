/**
 * `sign-safe-tx <proposal file>`: an owner with a local key signs a proposal's Safe transaction, never a
 * bare hash. The transaction is rebuilt from the file's fields (Safe, chain, nonce, call), its call decoded
 * into the owner operation it performs and that operation built again from the contract's current values,
 * so the signer sees what changes (as the proposer did) before anything is signed; then it is signed as
 * EIP-712 typed data (SafeTx, v 27/28). A 32-byte digest alone could be any transaction of any Safe: it
 * is refused. The signature goes to stdout, what was signed to stderr.
 */
import { decodeFunctionData, type Hex, type PublicClient } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { safeTxHash, safeTxTypedData, settlementAbi } from '../../chain/index.js'
import { localDeployerKey, privateKeySetting, type Env } from '../../config/index.js'
import { BaseError } from '../../errors/index.js'
import { FlagError, formatTable } from '../../platform/cli/index.js'
import type { Deployment } from '../../wire/index.js'
import { ownerOperation, type OwnerCommand } from './owner-operations.js'
import { readSafe } from './safe-account.js'
import { readSafeProposal } from './safe-proposal-file.js'

/** The settlement contract's function each owner command calls. */
const COMMAND_OF_FUNCTION: Record<string, OwnerCommand> = {
  setBaseFeeAmount: 'set-base-fee',
  setAcquiringPrice: 'set-acquiring-price',
  setMaxAcquiringFee: 'set-max-acquiring-fee',
  setFeeRecipient: 'set-fee-recipient',
  addAcquiringAllowedToken: 'allow-token',
  withdraw: 'withdraw',
  transferOwnership: 'transfer-ownership',
  acceptOwnership: 'accept-ownership',
}

export interface SignSafeTxContext {
  publicClient: PublicClient
  deployment: Deployment
  env: Env
}

export async function signSafeTx(file: string | undefined, nonceFlag: string | undefined, ctx: SignSafeTxContext): Promise<Hex> {
  const { publicClient, deployment, env } = ctx
  if (!file) throw new FlagError('sign-safe-tx needs the proposal file: the batch file a proposal wrote (with --nonce <n>) or its --json output')
  if (/^0x[0-9a-fA-F]{64}$/.test(file)) {
    throw new FlagError('sign-safe-tx signs no bare hash (it could be any transaction of any Safe): give the proposal\'s batch file with --nonce <n>, or its --json output, so that the transaction is rebuilt and shown before it is signed')
  }
  const proposal = readSafeProposal(file, nonceFlag)
  const { chainId, nonce, call } = proposal
  if (chainId !== deployment.chainId) throw new FlagError(`the proposal is for chain ${chainId}, the deployment is on chain ${deployment.chainId}`)

  const safe = await readSafe(publicClient, proposal.safe)
  if (!safe) throw new FlagError(`${proposal.safe} is not a Safe on chain ${chainId} (no Safe answers at that address)`)
  if (nonce < safe.nonce) throw new FlagError(`Safe nonce ${nonce} is already used: the Safe's next nonce is ${safe.nonce}`)
  const account = privateKeyToAccount(privateKeySetting(env, 'ADMIN_PRIVATE_KEY', chainId, localDeployerKey))
  const signer = account.address.toLowerCase() as Hex
  if (!safe.owners.includes(signer)) throw new FlagError(`ADMIN_PRIVATE_KEY's account ${signer} is not an owner of the Safe ${safe.address}`)

  // Only what can be shown as an owner operation of this deployment is signed.
  const settlement = deployment.settlementContract
  let decoded
  try {
    if (call.to !== settlement) throw new BaseError(`it calls ${call.to}`)
    decoded = decodeFunctionData({ abi: settlementAbi, data: call.data })
  } catch (error) {
    throw new FlagError(`the proposal's call is not an owner operation of the settlement contract ${settlement} (${(error as Error).message.split('\n')[0]}): it is not signed here`)
  }
  const command = COMMAND_OF_FUNCTION[decoded.functionName]
  if (!command) throw new FlagError(`the proposal calls ${decoded.functionName}, not an owner operation: it is not signed here`)
  const args = (decoded.args ?? []).map((arg) => String(arg))
  const op = await ownerOperation(command, args, { publicClient, deployment, holder: safe.address })
  if (op.data !== call.data) throw new FlagError(`the proposal's call data does not encode ${decoded.functionName}(${args.join(', ')}) exactly: it is not signed`)
  if (op.sender !== safe.address) throw new FlagError(`the Safe ${safe.address} is not the ${op.role} of ${settlement} (the ${op.role} is ${op.sender}): its transaction would revert`)

  const typedData = safeTxTypedData(safe.address, chainId, call, nonce)
  const hash = safeTxHash(safe.address, chainId, call, nonce)
  if (proposal.statedHash && proposal.statedHash !== hash) {
    throw new FlagError(`the proposal states Safe transaction hash ${proposal.statedHash}, but its fields hash to ${hash}: it is not signed`)
  }
  process.stderr.write(
    [
      `sign-safe-tx: ${command} (${decoded.functionName}(${args.join(', ')})) through the Safe ${safe.address}, rebuilt from ${file}`,
      '',
      formatTable([['change', 'current', 'new'], ...op.changes.map((c) => [c.setting, c.current, c.next])], { header: true }),
      '',
      formatTable([
        ['chain', String(chainId)],
        ['Safe', `${safe.address} (version ${safe.version}, ${safe.threshold} of ${safe.owners.length} owners, next nonce ${safe.nonce})`],
        ['Safe nonce', nonce.toString()],
        ['to', `${call.to} (the settlement contract)`],
        ['value', call.value.toString()],
        ['data', call.data],
        ['Safe transaction hash', hash],
        ['signed by', `${signer} (EIP-712 SafeTx)`],
      ]),
      '',
    ].join('\n'),
  )
  return account.signTypedData(typedData)
}
