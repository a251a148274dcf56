/**
 * A charge stored as the checkout engine stores it (a merchant of its own, the devnet's first token and
 * recipient, a 10-minute deadline and a payment-page token), for the widget's tests that need a page to show.
 */
import { insertCharge, type ChargeRow } from '../../src/processor/db/charges.js'
import { insertMerchant } from '../../src/processor/db/merchants.js'
import type { Database } from '../../src/processor/db/open-database.js'
import { issueEphemeralToken } from '../../src/processor/checkout/index.js'
import { randomBytes16, ZERO_BYTES16 } from '../../src/wire/order-reference.js'
import type { LocalChain } from '../../src/devnet/testing/index.js'

export async function storeCharge(db: Database, chain: LocalChain, { id, orderId, merchantName }: { id: string; orderId: string; merchantName: string }): Promise<ChargeRow> {
  const merchant = await insertMerchant(db.pool, { name: merchantName, webhookUrl: 'http://127.0.0.1:1/hooks', acquirerId: null })
  const token = chain.deployment.tokens[0]!
  const now = new Date()
  const deadline = new Date(now.getTime() + 600_000)
  const created = issueEphemeralToken(deadline, now.getTime())
  const charge = await insertCharge(db.pool, {
    id, merchantId: merchant.id, amount: 5_000_000n, token: token.address.toLowerCase() as `0x${string}`, currency: token.symbol,
    beneficiary: chain.deployment.recipients[0]!.toLowerCase() as `0x${string}`, orderId, orderReference: randomBytes16(), acquirerId: ZERO_BYTES16,
    fees: 10n, deadline, createdAt: now, ephemeralTokenHash: created.hash, ephemeralTokenExpiresAt: created.expiresAt,
  })
  return charge!
}
