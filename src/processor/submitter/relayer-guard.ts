/**
 * The relayer guard (PROCESSOR.md §2): while the relayer's native balance is below the minimum (by
 * default what 10 payments cost at current gas prices), the submitter takes no new work and gateways
 * answer RELAYER_UNAVAILABLE. The balance is re-read every check interval, so a top-up resumes work
 * without a restart. Changes are announced at once; the row is refreshed as a heartbeat otherwise.
 * Separately, the runway — payments the balance still pays for at the gas a payment measurably takes and
 * the current gas price — is written with it; below the warning level it is logged once as a warning
 * (and shown on /health) so that an operator tops up long before the hard stop.
 */
import type { Hex, PublicClient } from 'viem'
import { measurePaymentGas, PAYMENT_GAS, paymentsLeft } from '../../chain/index.js'
import type { FeeCache } from '../../chain/index.js'
import type { Sql } from '../db/index.js'
import { writeRelayerStatus } from '../db/index.js'
import type { Logger } from '../../platform/observability/index.js'

export interface RelayerGuard {
  /** Whether new work may be taken now (reads the chain at most every `checkIntervalMs`). */
  available(): Promise<boolean>
}

export interface CreateRelayerGuardParams {
  publicClient: PublicClient
  sql: Sql
  relayer: Hex
  fees: FeeCache
  /** Fixed minimum in wei; default the cost of 10 payments at the current max fee. */
  minimum?: bigint
  checkIntervalMs: number
  heartbeatMs: number
  log: Logger
  runway?: {
    settlementContract: Hex
    /** Warn below this many payments. */
    warnBelow: bigint
    /** Re-measure gas per payment and the gas price at most this often. */
    measureMs: number
  }
}

const PAYMENTS_COVERED = 10n

export function createRelayerGuard(params: CreateRelayerGuardParams): RelayerGuard {
  const { publicClient, sql, relayer, log } = params
  let checkedAt = 0
  let writtenAt = 0
  let last: boolean | undefined
  let price: { gasPerPayment: bigint; gasPrice: bigint; at: number } | undefined
  let lastLow: boolean | undefined

  /** Runway in payments, or undefined while it cannot be measured (the guard itself never depends on it). */
  const runwayOf = async (balance: bigint): Promise<bigint | undefined> => {
    const runway = params.runway
    if (!runway) return undefined
    if (!price || Date.now() - price.at >= runway.measureMs) {
      try {
        const [gas, gasPrice] = await Promise.all([
          measurePaymentGas({ publicClient, settlementContract: runway.settlementContract, relayer }),
          publicClient.getGasPrice(),
        ])
        price = { gasPerPayment: gas.gasPerPayment, gasPrice, at: Date.now() }
      } catch (error) {
        log.debug('relayer runway not measured; keeping the last figure', { error })
        if (!price) return undefined
      }
    }
    return paymentsLeft(balance, price.gasPerPayment, price.gasPrice)
  }

  return {
    async available() {
      if (last !== undefined && Date.now() - checkedAt < params.checkIntervalMs) return last
      checkedAt = Date.now()
      const [balance, price] = await Promise.all([publicClient.getBalance({ address: relayer }), params.fees.get()])
      const minimum = params.minimum ?? PAYMENTS_COVERED * PAYMENT_GAS * price.maxFeePerGas
      const available = balance > 0n && balance >= minimum
      const runwayPayments = await runwayOf(balance)
      const runwayLow = runwayPayments !== undefined && params.runway !== undefined && runwayPayments < params.runway.warnBelow
      const availabilityChanged = available !== last
      const changed = availabilityChanged || runwayLow !== lastLow
      if (changed || Date.now() - writtenAt >= params.heartbeatMs) {
        const status = { relayer, balance: balance.toString(), minimum: minimum.toString(), available, runwayPayments: runwayPayments?.toString() ?? null, runwayLow }
        await writeRelayerStatus(sql, status, changed)
        writtenAt = Date.now()
      }
      if (runwayLow !== lastLow && (runwayLow || lastLow !== undefined)) {
        const fields = { relayer, balance, runwayPayments, warnBelow: params.runway?.warnBelow }
        if (runwayLow) log.warn('relayer runway low: top up the relayer', fields)
        else log.info('relayer runway back above the warning level', fields)
      }
      lastLow = runwayLow
      // Quiet when it starts funded; every later change is worth a line.
      if (availabilityChanged && !(last === undefined && available)) {
        log[available ? 'info' : 'warn'](available ? 'relayer funded: taking work' : 'relayer balance below minimum: no new work', { relayer, balance, minimum })
      }
      last = available
      return available
    },
  }
}
