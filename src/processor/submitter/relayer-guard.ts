/**
 * The relayer guard (PROCESSOR.md §2): while the relayer's native balance is below the minimum (by
 * default what 10 payments cost at current gas prices), the submitter takes no new work and gateways
 * answer RELAYER_UNAVAILABLE. The balance is re-read every check interval, so a top-up resumes work
 * without a restart. Changes are announced at once; the row is refreshed as a heartbeat otherwise.
 */
import type { Hex, PublicClient } from 'viem'
import { PAYMENT_GAS } from '../../chain/index.js'
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
}

const PAYMENTS_COVERED = 10n

export function createRelayerGuard(params: CreateRelayerGuardParams): RelayerGuard {
  const { publicClient, sql, relayer, log } = params
  let checkedAt = 0
  let writtenAt = 0
  let last: boolean | undefined

  return {
    async available() {
      if (last !== undefined && Date.now() - checkedAt < params.checkIntervalMs) return last
      checkedAt = Date.now()
      const [balance, price] = await Promise.all([publicClient.getBalance({ address: relayer }), params.fees.get()])
      const minimum = params.minimum ?? PAYMENTS_COVERED * PAYMENT_GAS * price.maxFeePerGas
      const available = balance > 0n && balance >= minimum
      const changed = available !== last
      if (changed || Date.now() - writtenAt >= params.heartbeatMs) {
        await writeRelayerStatus(sql, { relayer, balance: balance.toString(), minimum: minimum.toString(), available }, changed)
        writtenAt = Date.now()
      }
      // Quiet when it starts funded; every later change is worth a line.
      if (changed && !(last === undefined && available)) {
        log[available ? 'info' : 'warn'](available ? 'relayer funded: taking work' : 'relayer balance below minimum: no new work', { relayer, balance, minimum })
      }
      last = available
      return available
    },
  }
}
