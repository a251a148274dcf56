/**
 * One state machine for every payable (a charge, a refund: a payment request that a settlement pays),
 * parameterised by its kind: the kind's transition table says from which statuses each change may start
 * and which webhook it sends, and `changePayable` is the one path that applies it — so a fix to how a
 * payable changes lands once for both kinds. Every change of a locked payable writes its event to the
 * outbox in the same transaction, with the payable as it now is.
 */
import type { PayableQueries, PayableTransition, SettlementPosition, Sql, WebhookType } from '../db/index.js'
import { enqueueWebhook } from '../db/index.js'
import { BaseError } from '../../errors/index.js'

/** What every payable row holds (`payable-queries.ts` is the SQL side of the same idea). */
export interface PayableRow {
  id: string
  merchantId: string
  status: string
  deadline: Date
  settlement: (SettlementPosition & { confirmations: number }) | null
}

export type TransitionTable<Status extends string, Awaiting extends string> = Record<PayableTransition<Awaiting>['to'], { from: readonly Status[]; webhook: WebhookType }>

export interface PayableKind<Row extends PayableRow & { status: Status }, Status extends string = Row['status'], Awaiting extends Status = Status> {
  name: 'charge' | 'refund'
  /** The status before payment, and the way back after a reorg took the settlement away. */
  awaiting: Awaiting
  rules: TransitionTable<Status, Awaiting>
  queries: PayableQueries<Row, Awaiting>
  /** The webhook's `data`: the payable's JSON. */
  render(row: Row, widgetBaseUrl: string): unknown
  /** The charge whose event stream the payable's webhooks join (a refund's events follow its charge's). */
  chargeIdOf(row: Row): string
  /** Runs a change that settles the payable or takes a settled one back (a refund recounts its charge). */
  settledChange?(sql: Sql, row: Row, change: () => Promise<Row>): Promise<Row>
}

/**
 * The transition table every payable follows: paid from `awaiting`, settled once confirmed, expired or
 * canceled only while awaiting, and back to `awaiting` from any of the `paid` statuses when a reorg takes
 * the settlement away. Each change sends the kind's event of that name (`charge.settled`, `refund.reverted`).
 */
export function transitionTable<Status extends string, Awaiting extends Status>(
  name: PayableKind<never>['name'],
  awaiting: Awaiting,
  paid: readonly Status[],
): TransitionTable<Status, Awaiting> {
  const webhook = (event: 'confirming' | 'settled' | 'reverted' | 'expired' | 'canceled'): WebhookType => `${name}.${event}`
  const rules = {
    confirming: { from: [awaiting], webhook: webhook('confirming') },
    settled: { from: ['confirming' as Status], webhook: webhook('settled') },
    expired: { from: [awaiting], webhook: webhook('expired') },
    canceled: { from: [awaiting], webhook: webhook('canceled') },
  }
  return { ...rules, [awaiting]: { from: paid, webhook: webhook('reverted') } } as TransitionTable<Status, Awaiting>
}

export const canTransition = <Row extends PayableRow & { status: Status }, Status extends string, Awaiting extends Status>(
  kind: PayableKind<Row, Status, Awaiting>,
  status: Status,
  to: PayableTransition<Awaiting>['to'],
) => kind.rules[to].from.includes(status)

/** Moves a payable locked by this transaction and enqueues its webhook; returns the payable as changed. */
export async function changePayable<Row extends PayableRow & { status: Status }, Status extends string, Awaiting extends Status>(
  sql: Sql,
  kind: PayableKind<Row, Status, Awaiting>,
  row: Row,
  transition: PayableTransition<Awaiting>,
  widgetBaseUrl: string,
): Promise<Row> {
  const rule = kind.rules[transition.to]
  if (!rule.from.includes(row.status)) {
    throw new BaseError(`${kind.name} ${row.id}: no transition from ${row.status} to ${transition.to}`, { details: { id: row.id, from: row.status, to: transition.to } })
  }
  const change = () => kind.queries.transition(sql, row.id, transition)
  const settles = transition.to === 'settled' || row.status === 'settled'
  const changed = settles && kind.settledChange ? await kind.settledChange(sql, row, change) : await change()
  await enqueuePayableEvent(sql, kind, changed, rule.webhook, widgetBaseUrl)
  return changed
}

/** A payable's webhook event, under its charge (so a charge's and its refunds' events reach the merchant in order). */
export async function enqueuePayableEvent<Row extends PayableRow & { status: Status }, Status extends string, Awaiting extends Status>(
  sql: Sql,
  kind: PayableKind<Row, Status, Awaiting>,
  row: Row,
  type: WebhookType,
  widgetBaseUrl: string,
  extra: object = {},
): Promise<void> {
  await enqueueWebhook(sql, { merchantId: row.merchantId, chargeId: kind.chargeIdOf(row), type, data: { ...(kind.render(row, widgetBaseUrl) as object), ...extra } })
}
