/**
 * What feed items do to charges, on a real PostgreSQL with synthetic settlements (cases a devnet reorg
 * cannot stage): a settlement delivered twice is applied once; one naming no charge changes nothing; the
 * paying transaction mined again at another position moves the charge without an event; a removal of
 * the paying settlement hands the charge to a valid second payment recorded meanwhile — and a refund's
 * settlements go through the same path as a charge's (issue 42 item 4).
 */
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import type { Hex } from 'viem'
import { randomBytes16, ZERO_BYTES16 } from '../../src/wire/order-reference.js'
import { applyRemoval, applySettlement, type ReconcileContext } from '../../src/processor/reconciliation/apply-feed-item.js'
import { paymentsOfCharge, refundPayments } from '../../src/processor/db/payments.js'
import { insertRefund, refundQueries } from '../../src/processor/db/refunds.js'
import { insertCharge, lockCharge, type ChargeRow } from '../../src/processor/db/charges.js'
import { insertMerchant } from '../../src/processor/db/merchants.js'
import { openDatabase, type Database } from '../../src/processor/db/open-database.js'
import { createLogger } from '../../src/platform/observability/logger.js'
import type { Settlement } from '../../src/wire/settlement.js'
import { testDatabase } from '../../src/devnet/test-database/index.js'

const TOKEN: Hex = `0x${'11'.repeat(20)}`
const BENEFICIARY: Hex = `0x${'22'.repeat(20)}`
// Synthetic settlements have no chain to be read back from: they are taken as the chain's.
// Nothing here asks whether a recorded settlement is still held (the head poll's question).
const ctx: ReconcileContext = {
  confirmationBlocks: 3,
  restoreWatchBlocks: 64,
  widgetBaseUrl: 'http://widget',
  head: () => 100,
  onChain: async (event) => event as Settlement,
  presence: async () => assert.fail('presence is not asked when applying feed items'),
}
let db: Database
let merchantId: string
let sequence = 0

before(async () => {
  db = await openDatabase(await testDatabase(), createLogger('silent'))
  merchantId = (await insertMerchant(db.pool, { name: 'Synthetic', webhookUrl: 'http://127.0.0.1:1/hooks', acquirerId: null })).id
})
after(() => db?.close())

async function newCharge(): Promise<ChargeRow> {
  const n = ++sequence
  const now = new Date()
  return (await insertCharge(db.pool, {
    id: `ch_${n.toString(16).padStart(24, '0')}`,
    merchantId,
    amount: 1_000n,
    token: TOKEN,
    currency: 'USDC',
    beneficiary: BENEFICIARY,
    orderId: `synthetic-${n}`,
    orderReference: randomBytes16(),
    acquirerId: ZERO_BYTES16,
    fees: 10n,
    deadline: new Date(now.getTime() + 600_000),
    createdAt: now,
    ephemeralTokenHash: 'x',
    ephemeralTokenExpiresAt: new Date(now.getTime() + 60_000),
  }))!
}

function settlement(charge: ChargeRow, position: { tx: number; block: number; logIndex?: number }): Settlement {
  return {
    txHash: `0x${position.tx.toString(16).padStart(64, '0')}`,
    blockNumber: position.block,
    logIndex: position.logIndex ?? 0,
    timestamp: Math.floor(Date.now() / 1000),
    token: TOKEN,
    tokenSymbol: 'USDC',
    tokenDecimals: 6,
    payer: `0x${'33'.repeat(20)}`,
    recipient: BENEFICIARY,
    amount: '1000',
    fee: '10',
    orderReference: charge.orderReference,
    acquirerId: ZERO_BYTES16,
    domainSeparator: `0x${'44'.repeat(32)}`,
  }
}

const apply = (event: Settlement) => db.transaction((client) => applySettlement(client, event, ctx))
const remove = (event: Settlement) => db.transaction((client) => applyRemoval(client, event, ctx))
const current = (id: string) => lockCharge(db.pool, id)

async function events(chargeId: string): Promise<string[]> {
  const { rows } = await db.pool.query<{ type: string }>(`SELECT type FROM webhook_events WHERE charge_id = $1 ORDER BY sequence`, [chargeId])
  return rows.map((row) => row.type)
}

test('a settlement delivered twice is applied once; one naming no charge changes nothing', async () => {
  const charge = await newCharge()
  const paying = settlement(charge, { tx: 1, block: 90 })
  await apply(paying)
  await apply(paying)
  assert.equal((await current(charge.id))!.status, 'confirming')
  assert.equal((await paymentsOfCharge(db.pool, charge.id)).length, 1)
  assert.deepEqual(await events(charge.id), ['charge.confirming'])
  const before = (await db.pool.query(`SELECT count(*)::int AS n FROM charge_payments`)).rows[0].n
  await apply({ ...paying, txHash: `0x${'99'.repeat(32)}`, orderReference: randomBytes16() })
  assert.equal((await db.pool.query(`SELECT count(*)::int AS n FROM charge_payments`)).rows[0].n, before)
})

test('the paying transaction mined again at another position: the charge follows it, no event', async () => {
  const charge = await newCharge()
  await apply(settlement(charge, { tx: 2, block: 91, logIndex: 4 }))
  await apply(settlement(charge, { tx: 2, block: 93, logIndex: 4 }))
  const moved = (await current(charge.id))!
  assert.equal(moved.status, 'confirming')
  assert.deepEqual({ ...moved.settlement, confirmations: undefined }, { txHash: settlement(charge, { tx: 2, block: 0 }).txHash, blockNumber: 93, logIndex: 4, confirmations: undefined })
  assert.deepEqual((await paymentsOfCharge(db.pool, charge.id)).map((p) => [p.blockNumber, p.outcome, p.removedAt !== null]), [[91, 'matched', true], [93, 'matched', false]])
  assert.deepEqual(await events(charge.id), ['charge.confirming'])
})

test('removing the paying settlement hands the charge to a valid second payment; a mismatched one is passed over', async () => {
  const charge = await newCharge()
  const first = settlement(charge, { tx: 3, block: 94 })
  const underpaid = { ...settlement(charge, { tx: 4, block: 95 }), amount: '999' }
  const second = settlement(charge, { tx: 5, block: 96 })
  for (const event of [first, underpaid, second]) await apply(event)
  assert.deepEqual((await paymentsOfCharge(db.pool, charge.id)).map((p) => [p.outcome, p.mismatch]), [['matched', []], ['second', ['underpaid']], ['second', []]])
  assert.deepEqual(await events(charge.id), ['charge.confirming', 'charge.late_payment', 'charge.late_payment'])

  await remove(first)
  const now = (await current(charge.id))!
  assert.equal(now.status, 'confirming')
  assert.equal(now.settlement!.txHash, second.txHash)
  assert.deepEqual(await events(charge.id), ['charge.confirming', 'charge.late_payment', 'charge.late_payment', 'charge.reverted', 'charge.confirming'])
  assert.deepEqual((await paymentsOfCharge(db.pool, charge.id)).map((p) => [p.outcome, p.removedAt !== null]), [['matched', true], ['second', false], ['matched', false]])

  await remove(second)
  assert.equal((await current(charge.id))!.status, 'awaiting-payment')
  assert.equal((await events(charge.id)).at(-1), 'charge.reverted')
})

test('a refund is paid like a charge: removing its paying settlement hands it to a valid second payment, which counted nothing until then', async () => {
  const charge = await newCharge()
  const payer: Hex = `0x${'33'.repeat(20)}`
  const now = new Date()
  const refund = await insertRefund(db.pool, {
    id: `re_${(++sequence).toString(16).padStart(24, '0')}`,
    chargeId: charge.id,
    merchantId,
    amount: '500',
    reason: null,
    token: TOKEN,
    currency: 'USDC',
    payer: BENEFICIARY,
    recipient: payer,
    orderReference: randomBytes16(),
    acquirerId: ZERO_BYTES16,
    fees: '10',
    deadline: new Date(now.getTime() + 600_000),
    createdAt: now,
    ephemeralTokenHash: 'y',
    ephemeralTokenExpiresAt: new Date(now.getTime() + 60_000),
  })
  const refundSettlement = (tx: number, block: number): Settlement => ({
    ...settlement(charge, { tx, block }),
    orderReference: refund.orderReference,
    payer: BENEFICIARY,
    recipient: payer,
    amount: '500',
  })
  const first = refundSettlement(6, 97)
  const second = refundSettlement(7, 98)
  await apply(first)
  await apply(second)
  assert.deepEqual((await refundPayments.of(db.pool, refund.id)).map((p) => [p.outcome, p.removedAt !== null]), [['matched', false], ['second', false]])
  assert.deepEqual(await events(charge.id), ['refund.confirming'])

  await remove(first)
  const paid = (await refundQueries.lock(db.pool, refund.id))!
  assert.equal(paid.status, 'confirming')
  assert.equal(paid.settlement!.txHash, second.txHash)
  assert.deepEqual(await events(charge.id), ['refund.confirming', 'refund.reverted', 'refund.confirming'])
  assert.deepEqual((await refundPayments.of(db.pool, refund.id)).map((p) => [p.outcome, p.removedAt !== null]), [['matched', true], ['matched', false]])
})
