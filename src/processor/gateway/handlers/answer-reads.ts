/**
 * GET_NONCE, GET_FEES and GET_BALANCE: reads of the chain for the caller, on supported tokens only.
 * Fees come from the settlement contract itself (`breakdownTransferAmount` / `calculateFees`), so the
 * answer is what a payment signed now would be charged.
 */
import { BaseError, ContractFunctionRevertedError } from 'viem'
import { GatewayRefusal } from '../input/gateway-refusal.js'
import type { Handler } from './context.js'

export const answerNonce: Handler<'GET_NONCE'> = async (ctx, conn, { payload }) => {
  const token = ctx.chain.token(payload.domainSeparator)
  const nonce = await ctx.chain.nonceOf(token.address, conn.address)
  return { type: 'NONCE_RESULT', requestId: payload.requestId, nonce: nonce.toString() }
}

export const answerFees: Handler<'GET_FEES'> = async (ctx, _conn, { payload }) => {
  ctx.chain.token(payload.domainSeparator)
  const amount = BigInt(payload.amount)
  const { fees, remaining, total } = await feesRefusingReverts(async () => {
    if (payload.amountIs === 'PRINCIPAL') {
      const fees = await ctx.chain.feesOn(amount, payload.acquirerId)
      return { fees, remaining: amount, total: amount + fees }
    }
    const { principal, fees } = await ctx.chain.breakdown(amount, payload.acquirerId)
    return { fees, remaining: principal, total: amount }
  })
  return {
    type: 'FEES_RESULT',
    requestId: payload.requestId,
    brokenDownAmount: { fees: fees.toString(), remaining: remaining.toString() },
    total: total.toString(),
  }
}

export const answerBalance: Handler<'GET_BALANCE'> = async (ctx, conn, { payload }) => {
  const tokens = payload.domainSeparators.map((separator) => ctx.chain.token(separator))
  const balances = await Promise.all(tokens.map((token) => ctx.chain.balanceOf(token.address, conn.address)))
  return {
    type: 'BALANCE_RESULT',
    requestId: payload.requestId,
    balances: tokens.map((token, i) => ({ domainSeparator: token.domainSeparator, balance: balances[i]!.toString() })),
  }
}

/** The contract refuses an amount below the base fee and an unknown acquirer: the request's values are at fault. */
async function feesRefusingReverts<T>(read: () => Promise<T>): Promise<T> {
  try {
    return await read()
  } catch (error) {
    const reverted = error instanceof BaseError ? error.walk((e) => e instanceof ContractFunctionRevertedError) : undefined
    const name = reverted instanceof ContractFunctionRevertedError ? reverted.data?.errorName : undefined
    if (name === 'AmountBelowBaseFee') throw new GatewayRefusal('INVALID_FORMAT', 'payload.amount is below the base fee')
    if (name === 'UnknownAcquirer') throw new GatewayRefusal('INVALID_FORMAT', 'payload.acquirerId is not a registered acquirer')
    throw error
  }
}
