/**
 * A merchant reads and changes only its own charges and refunds: another merchant's answers the same 404
 * as a missing one, so an id tells nothing about who has it.
 */
import type { Sql } from '../../db/index.js'
import { ProblemError } from '../../../platform/http/index.js'
import type { PayableKind, PayableRow } from '../../charges/index.js'

export async function ownPayable<Row extends PayableRow & { status: Status }, Status extends string, Awaiting extends Status>(
  sql: Sql,
  kind: PayableKind<Row, Status, Awaiting>,
  merchantId: string,
  id: string,
): Promise<Row> {
  const row = await kind.queries.find(sql, merchantId, id)
  if (!row) throw new ProblemError(404, `no ${kind.name} ${id}`)
  return row
}
