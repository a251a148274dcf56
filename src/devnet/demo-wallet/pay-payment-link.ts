/**
 * Paying a payment link the way a wallet does after scanning the QR code (PROCESSOR.md §5): the link's
 * `t` is the bearer token of one session call, which gives what to sign; the token's EIP-712 domain comes
 * from the data service's `/tokens`; the SDK's `WalletClient` pays it through the gateway the session
 * names and follows it to SUCCESS or FAILURE.
 */
import type { Hex, LocalAccount } from 'viem'
import { BaseError } from '../../errors/index.js'
import { WalletClient, type FinalStatus } from '../../sdk/index.js'
import type { PaymentSession, SessionToken } from '../../sdk/index.js'
import type { SubmissionStatusPush } from '../../wire/index.js'
import { fetchTokens, type ListedToken } from './data-service-client.js'

export class PaymentLinkError extends BaseError {
  override name = 'PaymentLinkError'
}

export interface PaySessionParams {
  session: PaymentSession
  account: LocalAccount
  /** The processor's data service, for the token's EIP-712 domain. */
  dataServiceUrl: string
  /** Before paying: the payer's balance of the session's token, the total it will sign for, and the token. */
  beforePaying?(params: { session: PaymentSession; balance: bigint; total: bigint; token: ListedToken }): Promise<void>
  onStatus?(push: SubmissionStatusPush): void
}

/** The session behind a payment link `<widget>/s/<chargeId>?t=<token>` (or a refund's, `/r/<refundId>`); the token is used up. */
export async function fetchPaymentSession(link: string): Promise<PaymentSession> {
  let url: URL
  try {
    url = new URL(link)
  } catch {
    throw new PaymentLinkError(`not a payment link: ${link}`)
  }
  const token = url.searchParams.get('t')
  if (!token || !/\/[sr]\/[^/]+\/?$/.test(url.pathname)) throw new PaymentLinkError(`not a payment link (expected <widget>/s/<charge id>?t=<token> or <widget>/r/<refund id>?t=<token>): ${link}`)
  const sessionUrl = `${url.origin}${url.pathname.replace(/\/+$/, '')}/api/session`
  const response = await fetch(sessionUrl, { headers: { authorization: `Bearer ${token}` } }).catch((error: Error) => {
    throw new PaymentLinkError(`${sessionUrl} does not answer (${(error.cause as Error | undefined)?.message ?? error.message})`, { cause: error, retryable: true })
  })
  const body = (await response.json().catch(() => ({}))) as PaymentSession & { detail?: string }
  if (!response.ok) throw new PaymentLinkError(`the payment session was refused: ${response.status} ${body.detail ?? response.statusText}`, { details: { status: response.status }, retryable: response.status >= 500 })
  return body
}

/** The session's token as the data service lists it: its EIP-712 domain, symbol and decimals. */
export async function sessionTokenOf(dataServiceUrl: string, token: Hex): Promise<ListedToken> {
  const found = (await fetchTokens(dataServiceUrl)).find((t) => t.address.toLowerCase() === token.toLowerCase())
  if (!found) throw new PaymentLinkError(`token ${token} is not among the data service's /tokens`)
  return found
}

/** Pays a session through the gateway it names; resolves with the submission's final status. */
export async function paySession(params: PaySessionParams): Promise<FinalStatus> {
  const { session } = params
  const token = await sessionTokenOf(params.dataServiceUrl, session.token)
  const wallet = new WalletClient({ url: session.walletGatewayUrl, account: params.account, chainId: session.chainId })
  await wallet.connect()
  try {
    if (params.beforePaying) {
      const [[{ balance } = { balance: 0n }], { total }] = await Promise.all([
        wallet.getBalance([token.domainSeparator]),
        wallet.getFees(token.domainSeparator, BigInt(session.principal), session.acquirerId, 'PRINCIPAL'),
      ])
      await params.beforePaying({ session, balance, total, token })
    }
    const domain: SessionToken = { name: token.name, version: token.version, domainSeparator: token.domainSeparator }
    return await wallet.pay(session, domain, { onStatus: params.onStatus })
  } finally {
    wallet.disconnect()
  }
}
