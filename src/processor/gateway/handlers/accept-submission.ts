/**
 * SUBMIT_PAYMENT and SUBMIT_ACQUIRING: the checks a gateway can make before the submitter spends
 * anything, in this order — the token is supported (UNSUPPORTED_TOKEN), the permit's owner is the
 * caller (ADDRESS_MISMATCH), its spender is the settlement contract (INVALID_FORMAT), the binding and
 * permit signatures both recover to the owner (INVALID_SIGNATURE), the permit deadline is ahead
 * (EXPIRED_DEADLINE), the permit nonce is not behind the token's (NONCE_MISMATCH), the relayer is
 * available (RELAYER_UNAVAILABLE: the status the gateway keeps from the submitter's NOTIFY, as /health
 * answers it; a stale one means no submitter is alive) — then the submission is queued in PostgreSQL,
 * once per payload id and binding digest (ALREADY_SUBMITTED). The insert itself bounds what an owner can
 * queue, since signatures cost nothing and every queued permit costs the submitter re-checks: a nonce
 * ahead waits for its predecessors, so it may be at most the token's next nonce plus the owner's queued
 * payments in that token (NONCE_MISMATCH); an owner may have GATEWAY_MAX_QUEUED_PER_OWNER submissions
 * not yet final (RATE_LIMIT_EXCEEDED). The insert also classes the submission executable or future from
 * the owner's token nonce and balance (submissions.ts): executable ones fill GATEWAY_MAX_QUEUED_TOTAL
 * (RELAYER_UNAVAILABLE), future ones GATEWAY_MAX_FUTURE_PER_OWNER (RATE_LIMIT_EXCEEDED) and
 * GATEWAY_MAX_FUTURE_TOTAL, past which the oldest waiting future ones are evicted (FAILURE EVICTED; the
 * submission is acknowledged even if that eviction fails, since it is queued):
 * throwaway keys, which cost nothing, can only push out each other's permits, never a real payment.
 */
import type { Hex } from 'viem'
import { bindingDigest, intentOfAcquiring, intentOfPayment, permitDigest, type PaymentIntent } from '../../../wire/index.js'
import { enqueueSubmission, evictOldestFuture, type QueueLimits } from '../../db/index.js'
import { recoverSigner } from '../input/recover-signer.js'
import { GatewayRefusal } from '../input/gateway-refusal.js'
import type { ServerMessage } from '../../../wire/index.js'
import type { BoundConnection, GatewayContext, Handler } from './context.js'

export const acceptPayment: Handler<'SUBMIT_PAYMENT'> = async (ctx, conn, { payload, signedPayload }) => {
  const payloadId = await accept(ctx, conn, intentOfPayment(payload.transferRequest), signedPayload.transferRequest)
  ctx.countAccepted('payment')
  return { type: 'SUBMIT_PAYMENT_ACK', requestId: payload.requestId, payloadId, status: 'ENQUEUING' } satisfies ServerMessage
}

export const acceptAcquiring: Handler<'SUBMIT_ACQUIRING'> = async (ctx, conn, { payload, signedPayload }) => {
  const payloadId = await accept(ctx, conn, intentOfAcquiring(payload.buyAcquiringPackRequest), signedPayload.buyAcquiringPackRequest)
  ctx.countAccepted('acquiring')
  return { type: 'SUBMIT_ACQUIRING_ACK', requestId: payload.requestId, payloadId, status: 'ENQUEUING' } satisfies ServerMessage
}

/** Checks and queues one request; `request` is stored as the wallet signed it. */
async function accept(ctx: GatewayContext, conn: BoundConnection, intent: PaymentIntent, request: unknown): Promise<string> {
  const token = ctx.chain.tokenAt(intent.token)
  if (!token) throw new GatewayRefusal('UNSUPPORTED_TOKEN', `token ${intent.token} is not supported by this gateway`)
  if (intent.owner !== conn.address) throw new GatewayRefusal('ADDRESS_MISMATCH', `the permit's owner ${intent.owner} is not the caller ${conn.address}`)
  if (intent.permit.spender !== ctx.contract) {
    throw new GatewayRefusal('INVALID_FORMAT', `the permit's spender must be the settlement contract ${ctx.contract}, not ${intent.permit.spender}`)
  }
  const digest = bindingDigest(intent, ctx.chainId, ctx.contract)
  const bindingSigner = recoverSigner(digest, intent.bindingSig)
  const permitSigner = recoverSigner(permitDigest(intent, ctx.chain.tokenDomain(token)), intent.permitSig)
  if (bindingSigner !== intent.owner) throw new GatewayRefusal('INVALID_SIGNATURE', `the binding signature ${signedBy(bindingSigner)}, not by the owner ${intent.owner}`)
  if (permitSigner !== intent.owner) throw new GatewayRefusal('INVALID_SIGNATURE', `the permit signature ${signedBy(permitSigner)}, not by the owner ${intent.owner}`)
  const now = BigInt(Math.floor(Date.now() / 1000))
  if (intent.permit.deadline <= now) throw new GatewayRefusal('EXPIRED_DEADLINE', `the permit's deadline ${intent.permit.deadline} has passed (now ${now})`)
  const [nonce, balance] = await Promise.all([ctx.chain.nonceOf(token.address, intent.owner), ctx.chain.balanceOf(token.address, intent.owner)])
  if (intent.permit.nonce < nonce) {
    throw new GatewayRefusal('NONCE_MISMATCH', `the permit's nonce ${intent.permit.nonce} is already used: the token's next nonce for ${intent.owner} is ${nonce}`)
  }
  const unavailable = ctx.relayer.unavailable()
  if (unavailable) throw new GatewayRefusal('RELAYER_UNAVAILABLE', `${unavailable}; retry later`)
  const { maxQueuedPerOwner: maxPerOwner, maxQueued: maxTotal, maxFuturePerOwner, maxFuture } = ctx.limits
  const limits: QueueLimits = { chainNonce: nonce, balance, maxPerOwner, maxTotal, maxFuturePerOwner, maxFuture }
  const { outcome, future, queued } = await enqueueSubmission(ctx.db.pool, { intent, callerAddress: conn.address, digest, request }, limits)
  switch (outcome) {
    case 'enqueued':
      // Queued is queued: an eviction that fails (the database at that moment) must not turn the ACK into
      // an error; the next future submission evicts what passes the budget then.
      if (future && queued.futureTotal >= maxFuture) {
        await evictOldestFuture(ctx.db, maxFuture).catch((error: unknown) =>
          ctx.log.warn('could not evict the oldest future submissions; the next future submission will', { error }),
        )
      }
      return intent.payloadId
    case 'duplicate':
      throw new GatewayRefusal('ALREADY_SUBMITTED', `payload ${intent.payloadId} or the same signed payment was already submitted`)
    case 'nonce-ahead':
      throw new GatewayRefusal(
        'NONCE_MISMATCH',
        `the permit's nonce ${intent.permit.nonce} is too far ahead of the token's next nonce for ${intent.owner}: it is ${nonce} with ${queued.byOwnerToken} queued payments in this token, so at most nonce ${nonce + BigInt(queued.byOwnerToken)} is accepted`,
      )
    case 'owner-full':
      throw new GatewayRefusal('RATE_LIMIT_EXCEEDED', `${intent.owner} has ${queued.byOwner} submissions queued, the most accepted; retry once one is final`)
    case 'owner-future-full':
      throw new GatewayRefusal(
        'RATE_LIMIT_EXCEEDED',
        `${intent.owner} has ${queued.futureByOwner} submissions queued that cannot run yet (permit nonce ahead of the chain's, or more than the balance covers), the most accepted; retry once one can run`,
      )
    case 'queue-full':
      throw new GatewayRefusal('RELAYER_UNAVAILABLE', `the submission queue is full (${queued.total} waiting); retry later`)
  }
}

const signedBy = (signer: Hex | undefined) => (signer ? `is signed by ${signer}` : 'recovers to no signer')
