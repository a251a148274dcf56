/** One row per settlement, indexed by recipient then position, as the explorer's recipient index. */
import { index, onchainTable } from 'ponder'

export const settlement = onchainTable(
  'settlement',
  (t) => ({
    id: t.text().primaryKey(),
    blockNumber: t.bigint().notNull(),
    logIndex: t.integer().notNull(),
    timestamp: t.bigint().notNull(),
    txHash: t.hex().notNull(),
    token: t.hex().notNull(),
    payer: t.hex().notNull(),
    recipient: t.hex().notNull(),
    amount: t.bigint().notNull(),
    fee: t.bigint().notNull(),
    reference: t.hex().notNull(),
  }),
  (table) => ({
    recipientIdx: index().on(table.recipient, table.blockNumber, table.logIndex),
  }),
)
