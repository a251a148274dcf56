/**
 * Charges bought end to end while the checkout engine's node lags (issue 38): `workers` loops, each a
 * demo payer of its own, create a charge over the merchant API (mutual TLS), fetch its payment session from
 * the widget and pay it through the gateway, as a customer's wallet does. At the end every charge whose
 * payment the submitter reported SUCCESS must be settled, by exactly one live matching payment, and no
 * charge may have expired — whatever the lagging node, the reorgs and the kills did meanwhile.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import { payAsDemoPayer } from '../../src/devnet/demo-wallet/index.js'
import type { Database } from '../../src/processor/db/index.js'
import type { MerchantClient } from '../../src/processor/merchant-client/index.js'
import type { Deployment } from '../../src/wire/index.js'

export interface ChargeLoadStats {
  created: number
  paid: number
  failed: Record<string, number>
  /** The last purchase that failed before its payment was sent, as it failed. */
  lastError?: string
}

export interface ChargeVerdict {
  paid: number
  settled: number
  /** Paid charges not settled when the wait ended, with their status. */
  unsettled: string[]
  /** Charges with more or fewer than one live matching payment. */
  miscounted: string[]
  expired: number
  /** Webhook events of the charges, by type. */
  events: Record<string, number>
}

export interface ChargeLoadParams {
  merchant: MerchantClient
  deployment: Deployment
  rpcUrl: string
  dataServiceUrl: string
  workers: number
  /** Pause between one worker's purchases. */
  pauseMs: number
  signal: AbortSignal
}

export function startChargeLoad({ merchant, deployment, rpcUrl, dataServiceUrl, workers, pauseMs, signal }: ChargeLoadParams) {
  const stats: ChargeLoadStats = { created: 0, paid: 0, failed: {} }
  const paid: string[] = []
  const token = deployment.tokens[0]!
  async function worker(index: number): Promise<void> {
    for (let n = 0; !signal.aborted; n++) {
      try {
        const charge = await merchant.createCharge({
          amount: String(1_000_000 * (1 + Math.floor(Math.random() * 20))),
          token: token.address,
          beneficiary: deployment.recipients[index % deployment.recipients.length]!,
          currency: token.symbol,
          orderId: `soak-${index}-${n}-${Date.now()}`,
        })
        stats.created++
        const { final } = await payAsDemoPayer(`${charge.widgetUrl}?t=${charge.ephemeralToken}`, { index, rpcUrl, dataServiceUrl })
        if (final.status === 'SUCCESS') {
          stats.paid++
          paid.push(charge.id)
        } else stats.failed[final.failureCategory ?? 'FAILURE'] = (stats.failed[final.failureCategory ?? 'FAILURE'] ?? 0) + 1
      } catch (error) {
        const { name, message } = error as Error
        stats.failed[name] = (stats.failed[name] ?? 0) + 1
        stats.lastError = message.split('\n')[0]
      }
      await sleep(pauseMs, undefined, { signal }).catch(() => {})
    }
  }
  const done = Promise.all(Array.from({ length: workers }, (_, i) => worker(i)))
  return { stats, paid, done }
}

/** Waits up to `waitMs` for every paid charge to settle, then checks each against its payments and events. */
export async function verifyCharges(db: Database, paid: string[], waitMs: number): Promise<ChargeVerdict> {
  const statuses = async () => (await db.pool.query<{ id: string; status: string }>(`SELECT id, status FROM charges WHERE id = ANY($1)`, [paid])).rows
  const deadline = Date.now() + waitMs
  let rows = await statuses()
  while (rows.some((r) => r.status !== 'settled') && Date.now() < deadline) {
    await sleep(1_000)
    rows = await statuses()
  }
  const { rows: counts } = await db.pool.query<{ charge_id: string; live: number }>(
    `SELECT charge_id, count(*) FILTER (WHERE outcome = 'matched' AND removed_at IS NULL)::int AS live FROM charge_payments WHERE charge_id = ANY($1) GROUP BY charge_id`,
    [paid],
  )
  const live = new Map(counts.map((c) => [c.charge_id, c.live]))
  const { rows: expired } = await db.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM charges WHERE status = 'expired'`)
  const { rows: events } = await db.pool.query<{ type: string; n: number }>(`SELECT type, count(*)::int AS n FROM webhook_events WHERE charge_id = ANY($1) GROUP BY type ORDER BY type`, [paid])
  return {
    paid: paid.length,
    settled: rows.filter((r) => r.status === 'settled').length,
    unsettled: rows.filter((r) => r.status !== 'settled').map((r) => `${r.id} ${r.status}`),
    miscounted: paid.filter((id) => live.get(id) !== 1),
    expired: expired[0]!.n,
    events: Object.fromEntries(events.map((e) => [e.type, e.n])),
  }
}
