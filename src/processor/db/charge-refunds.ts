/**
 * What refunds do to their charge: what the charge's payer paid (who a refund goes to, and the most that
 * can be refunded), and the charge's `amount_refunded` and status recomputed from its settled refunds.
 */
import type { Hex } from 'viem'
import { chargeChangedChannel, chargeColumns, type ChargeRow } from './charges.js'
import type { Sql } from './open-database.js'

/** The live settlement paying the charge: who paid, and what the beneficiary received (`amount`). */
export async function chargePaidBy(sql: Sql, chargeId: string): Promise<{ payer: Hex; amount: string } | undefined> {
  const { rows } = await sql.query<{ payer: Hex; amount: string }>(
    `SELECT payer, amount::text AS amount FROM charge_payments WHERE charge_id = $1 AND outcome = 'matched' AND removed_at IS NULL ORDER BY id DESC LIMIT 1`,
    [chargeId],
  )
  return rows[0]
}

/**
 * Sets the charge's `amount_refunded` to the sum of its settled refunds and, while it is paid, its status:
 * `settled` with nothing refunded, `refunded` once the refunds reach what the beneficiary received,
 * `partially-refunded` in between. Announced like any charge change.
 */
export async function recountChargeRefunds(sql: Sql, chargeId: string): Promise<ChargeRow> {
  const { rows } = await sql.query<ChargeRow>(
    `WITH refunded AS (SELECT COALESCE(sum(amount), 0) AS sum FROM refunds WHERE charge_id = $1 AND status = 'settled'),
       received AS (SELECT max(amount) AS amount FROM (
         SELECT amount FROM charge_payments WHERE charge_id = $1 AND outcome = 'matched' AND removed_at IS NULL ORDER BY id DESC LIMIT 1) paying),
       changed AS (
         UPDATE charges SET amount_refunded = refunded.sum, updated_at = now(), status = CASE
             WHEN status NOT IN ('settled', 'partially-refunded', 'refunded') OR received.amount IS NULL THEN status
             WHEN refunded.sum = 0 THEN 'settled'
             WHEN refunded.sum >= received.amount THEN 'refunded'
             ELSE 'partially-refunded' END
         FROM refunded, received WHERE id = $1 RETURNING charges.*),
       announced AS (SELECT pg_notify('${chargeChangedChannel}', id) FROM changed)
     SELECT ${chargeColumns} FROM changed, announced`,
    [chargeId],
  )
  return rows[0]!
}
