/**
 * The demo wallet: a payment link paid by demo payer `index` on the devnet, topped up first when its
 * balance is short. The demo store's button and `npm run wallet -- pay <link>` both come here.
 */
import type { LocalAccount } from 'viem'
import type { FinalStatus } from '../../sdk/index.js'
import type { PaymentSession } from '../../sdk/index.js'
import { assertDemoChain, demoPayerAccount, topUpDemoPayer } from './demo-payer.js'
import type { ListedToken } from './data-service-client.js'
import { fetchPaymentSession, paySession, type PaySessionParams } from './pay-payment-link.js'

export interface DemoPaymentParams {
  /** The demo payer's index; with `account`, the devnet payer that tops that account up. */
  index: number
  /** Who pays instead of demo payer `index` (the demo merchant's wallet paying a refund link). */
  account?: LocalAccount
  /** The devnet's node, for a top-up. */
  rpcUrl: string
  dataServiceUrl: string
  onStatus?: PaySessionParams['onStatus']
  /** The session is in hand (its token used up): for timing. */
  onSession?(session: PaymentSession): void
  /** What the payer is about to sign for: the total (principal and fees) in the token's smallest units. */
  onQuote?(quote: { session: PaymentSession; total: bigint; token: ListedToken }): void
}

export async function payAsDemoPayer(link: string, params: DemoPaymentParams): Promise<{ session: PaymentSession; final: FinalStatus; payer: string }> {
  const session = await fetchPaymentSession(link)
  assertDemoChain(session.chainId)
  params.onSession?.(session)
  const account = params.account ?? demoPayerAccount(params.index)
  const final = await paySession({
    session,
    account,
    dataServiceUrl: params.dataServiceUrl,
    onStatus: params.onStatus,
    beforePaying: async ({ balance, total, token }) => {
      params.onQuote?.({ session, total, token })
      await topUpDemoPayer({ rpcUrl: params.rpcUrl, index: params.index, token: session.token, balance, needed: total, to: account.address })
    },
  })
  return { session, final, payer: account.address.toLowerCase() }
}
