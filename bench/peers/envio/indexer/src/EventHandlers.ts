/** Every PermittedTransfer becomes a settlement row (as bench/peers/ponder/src/index.ts). */
import { Settlement } from 'generated'

Settlement.PermittedTransfer.handler(async ({ event, context }) => {
  context.Settlement.set({
    id: `${event.transaction.hash}:${event.logIndex}`,
    blockNumber: BigInt(event.block.number),
    logIndex: event.logIndex,
    timestamp: BigInt(event.block.timestamp),
    txHash: event.transaction.hash,
    token: event.params.token,
    payer: event.params.payer,
    recipient: event.params.recipient,
    amount: event.params.value,
    fee: event.params.fee,
    reference: event.params.orderReference,
  })
})
