/**
 * Checks a queued payment before any gas is spent on it (PROCESSOR.md §2): both signatures recover to
 * the owner, the deadline is ahead, the binding digest is unused, the permit nonce is the token's next
 * one, the payer's balance covers the permit, and an `eth_call` of the exact transaction succeeds.
 * A permit nonce ahead of the token's is not an error: an earlier payment of the same payer is still
 * on its way, so the submission waits (`defer`) — until it has waited too often, when the loop fails it
 * with the verdict's category.
 *
 * After the local checks (deadline, spender) the `eth_call` runs first: the contract itself recovers
 * both signatures (the binding one against the owner, the permit through the token's `permit`), refuses
 * a used digest, a permit nonce other than the token's (it builds the binding digest from
 * `nonces(owner)`) and a short balance — and accepts only signatures that the recovery here accepts —
 * so a successful call has passed every check. Only when it fails do the checks run one by one, in the
 * order above, to name the verdict (else the revert reason): the same verdicts as checking first, with
 * no signature recovery and no reads for the payments that go through.
 */
import { BaseError, decodeErrorResult, encodeFunctionData, erc20Abi, type Hex, type PublicClient, ExecutionRevertedError } from 'viem'
import { settlementAbi } from '../../chain/index.js'
import { stablecoinAbi } from '../../chain/index.js'
import { bindingDigest, buyAcquiringPackArgs, permitDigest, transferWithPermitArgs, type PaymentIntent } from '../../wire/index.js'
import type { PermitTracker } from '../../chain/index.js'
import { recoverSigner } from '../gateway/index.js'
import type { FailureCategory } from '../../wire/index.js'

/**
 * `defer`: not yet decidable, checked again later; `category` is the failure once it has waited too often.
 * `tokenNonce`: the token's permit nonce for the owner when the permit nonce is ahead of it.
 */
export type Verdict = { ok: true; data: Hex } | { ok: false; defer: boolean; category: FailureCategory; reason: string; tokenNonce?: bigint }

export interface ValidationContext {
  publicClient: PublicClient
  permits: PermitTracker
  chainId: number
  settlementContract: Hex
  relayer: Hex
  /** A deadline closer than this is refused: the transaction could not be mined in time. */
  deadlineMarginSeconds: number
}

export async function validateSubmission(ctx: ValidationContext, intent: PaymentIntent): Promise<Verdict> {
  const { publicClient, settlementContract } = ctx
  const fail = (category: FailureCategory, reason: string): Verdict => ({ ok: false, defer: false, category, reason })

  if (intent.permit.deadline <= BigInt(Math.floor(Date.now() / 1000) + ctx.deadlineMarginSeconds)) return fail('EXPIRED', 'the permit deadline has passed or is too close')
  if (intent.permit.spender !== settlementContract) return fail('INVALID_SIGNATURE', 'the permit spender is not the settlement contract')
  const data =
    intent.kind === 'PAYMENT'
      ? encodeFunctionData({ abi: settlementAbi, functionName: 'transferWithPermit', args: transferWithPermitArgs(intent) })
      : encodeFunctionData({ abi: settlementAbi, functionName: 'buyAcquiringPack', args: buyAcquiringPackArgs(intent) })
  const simulate = () =>
    publicClient.call({ account: ctx.relayer, to: settlementContract, data }).then(
      () => undefined,
      (error: unknown) => ({ error }),
    )
  let simulation = await simulate()
  if (!simulation) return { ok: true, data }

  const digest = bindingDigest(intent, ctx.chainId, settlementContract)
  const tokenDomain = await ctx.permits.tokenDomain(intent.token)
  if (recoverSigner(digest, intent.bindingSig) !== intent.owner) return fail('INVALID_SIGNATURE', 'the binding signature does not recover to the permit owner')
  if (recoverSigner(permitDigest(intent, tokenDomain), intent.permitSig) !== intent.owner) return fail('INVALID_SIGNATURE', 'the permit signature does not recover to the permit owner')
  const [used, tokenNonce, balance] = await Promise.all([
    publicClient.readContract({ address: settlementContract, abi: settlementAbi, functionName: 'usedHashes', args: [digest] }),
    publicClient.readContract({ address: intent.token, abi: stablecoinAbi, functionName: 'nonces', args: [intent.owner] }),
    publicClient.readContract({ address: intent.token, abi: erc20Abi, functionName: 'balanceOf', args: [intent.owner] }),
  ])
  if (used) return fail('ALREADY_USED', 'the binding digest is already recorded in usedHashes')
  if (intent.permit.nonce > tokenNonce) {
    return { ok: false, defer: true, category: 'NONCE_MISMATCH', reason: `permit nonce ${intent.permit.nonce} is ahead of the token's ${tokenNonce}`, tokenNonce }
  }
  if (intent.permit.nonce < tokenNonce) return fail('NONCE_MISMATCH', `permit nonce ${intent.permit.nonce} was already used (the token is at ${tokenNonce})`)
  if (balance < intent.permit.value) return fail('INSUFFICIENT_BALANCE', `the payer holds ${balance}, the permit needs ${intent.permit.value}`)
  // The checks read a later state than the simulation: an earlier payment of the same payer mined in
  // between (its permit nonce was ahead, now it is current) leaves a stale revert. Simulate once more.
  simulation = await simulate()
  if (!simulation) return { ok: true, data }
  // A node that failed to answer (a timeout, a reorg in progress, "invalid parameters") said nothing about
  // the payment: it waits and is simulated again, until its deadline makes it EXPIRED.
  if (!isRevert(simulation.error)) return { ok: false, defer: true, category: 'SIMULATION_FAILED', reason: `the node could not simulate it: ${revertReason(simulation.error)}` }
  return fail('SIMULATION_FAILED', revertReason(simulation.error))
}

function isRevert(error: unknown): boolean {
  if (!(error instanceof BaseError)) return false
  return Boolean(error.walk((e) => e instanceof ExecutionRevertedError || typeof (e as { data?: unknown }).data === 'string'))
}

/** The contract's custom error name when the revert data decodes, else viem's short message. */
function revertReason(error: unknown): string {
  if (!(error instanceof BaseError)) return String(error)
  const withData = error.walk((e) => typeof (e as { data?: unknown }).data === 'string') as { data?: Hex } | null
  if (withData?.data) {
    try {
      return `reverted: ${decodeErrorResult({ abi: settlementAbi, data: withData.data }).errorName}`
    } catch {
      // Not one of the contract's errors: fall through to the node's message.
    }
  }
  return error.shortMessage
}
