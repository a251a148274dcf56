/** Every PermittedTransfer becomes a settlement row. */
import { ponder } from 'ponder:registry'
import { settlement } from 'ponder:schema'

ponder.on('Settlement:PermittedTransfer', async ({ event, context }) => {
  await context.db.insert(settlement).values({
    id: `${event.transaction.hash}:${event.log.logIndex}`,
    blockNumber: event.block.number,
    logIndex: event.log.logIndex,
    timestamp: event.block.timestamp,
    txHash: event.transaction.hash,
    token: event.args.token,
    payer: event.args.payer,
    recipient: event.args.recipient,
    amount: event.args.value,
    fee: event.args.fee,
    reference: event.args.orderReference,
  })
})
