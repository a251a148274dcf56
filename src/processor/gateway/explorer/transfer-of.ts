/** A settlement as the explorer serves it, seen from one wallet: the gateway's transfer record. */
import type { Hex } from 'viem'
import type { Settlement } from '../../../wire/index.js'
import type { Transfer } from '../../../wire/index.js'

export function transferOf(settlement: Settlement, wallet: Hex): Transfer {
  return {
    domainSeparator: settlement.domainSeparator,
    txHash: settlement.txHash,
    blockNumber: settlement.blockNumber,
    logIndex: settlement.logIndex,
    timestamp: settlement.timestamp,
    from: settlement.payer,
    to: settlement.recipient,
    value: settlement.amount,
    fee: settlement.fee,
    orderReference: settlement.orderReference,
    acquirerId: settlement.acquirerId,
    direction: settlement.payer === wallet ? 'OUT' : 'IN',
  }
}
