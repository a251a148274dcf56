/**
 * The store's client of the checkout engine's merchant API (PROCESSOR.md §4), over mutual TLS with the
 * demo merchant's client certificate, verifying the server against the CA certificate that came with
 * it. Credentials are read from the merchant directory when they change, so a certificate renewed by
 * `setUpDemoMerchant` is used without a restart.
 */
import { Agent, fetch, type Response } from 'undici'
import { BaseError } from '../../errors/index.js'
import type { ChargeJson, RefundJson } from '../../processor/charges/index.js'
import { readClientCredentials } from './merchant-files.js'

export interface ChargeRequest {
  amount: string
  token: string
  beneficiary: string
  currency: string
  orderId: string
}

export interface MerchantApi {
  /**
   * Creates the charge; the same `idempotencyKey` and body again return the same charge with a fresh
   * payment-page token (how the store's demo wallet gets a payment link of its own).
   */
  createCharge(request: ChargeRequest, idempotencyKey: string): Promise<ChargeJson>
  /** A reusable payment link (issue 23): each payer who uses it gets a charge of their own. */
  createPaymentLink(request: PaymentLinkRequest): Promise<{ id: string; url: string }>
  /** A refund of the charge (issue 23); the same key again replays it with a fresh payment-page token. */
  createRefund(chargeId: string, request: { amount: string; reason?: string }, idempotencyKey: string): Promise<RefundJson>
  /** `GET /api/v1/reports/charges.csv` answered 200, its body not read yet (to be streamed on). */
  chargesReport(): Promise<Response>
  close(): Promise<void>
}

export interface PaymentLinkRequest {
  amount: string
  token: string
  beneficiary: string
  description: string
}

export class MerchantApiError extends BaseError {
  override name = 'MerchantApiError'
}

export function merchantApi({ checkoutUrl, merchantDir }: { checkoutUrl: string; merchantDir: string }): MerchantApi {
  let agent: { cert: string; agent: Agent } | undefined
  const dispatcher = async () => {
    const credentials = await readClientCredentials(merchantDir)
    if (agent?.cert !== credentials.cert) {
      await agent?.agent.close()
      agent = { cert: credentials.cert, agent: new Agent({ connect: credentials }) }
    }
    return agent.agent
  }
  const call = async (method: string, path: string, init: { body?: unknown; headers?: Record<string, string> } = {}) =>
    fetch(`${checkoutUrl}${path}`, {
      method,
      headers: { ...(init.body !== undefined && { 'content-type': 'application/json' }), ...init.headers },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
      dispatcher: await dispatcher(),
    }).catch((error: Error) => {
      throw new MerchantApiError(`the merchant API at ${checkoutUrl} does not answer (${(error.cause as Error | undefined)?.message ?? error.message})`, { cause: error, retryable: true })
    })
  const refused = async (what: string, response: Response) => {
    const body = (await response.json().catch(() => ({}))) as { detail?: string }
    return new MerchantApiError(`${what} answered ${response.status}: ${body.detail ?? response.statusText}`, { details: { status: response.status }, retryable: response.status >= 500 })
  }
  return {
    async createCharge(request, idempotencyKey) {
      const response = await call('POST', '/api/v1/charges', { body: request, headers: { 'idempotency-key': idempotencyKey } })
      if (response.status !== 201) throw await refused('charge creation', response)
      return (await response.json()) as ChargeJson
    },
    async createPaymentLink(request) {
      const response = await call('POST', '/api/v1/payment-links', { body: request })
      if (response.status !== 201) throw await refused('payment link creation', response)
      return (await response.json()) as { id: string; url: string }
    },
    async createRefund(chargeId, request, idempotencyKey) {
      const response = await call('POST', `/api/v1/charges/${chargeId}/refunds`, { body: request, headers: { 'idempotency-key': idempotencyKey } })
      if (response.status !== 201) throw await refused('refund creation', response)
      return (await response.json()) as RefundJson
    },
    async chargesReport() {
      const response = await call('GET', '/api/v1/reports/charges.csv')
      if (response.status !== 200) throw await refused('the charges report', response)
      return response
    },
    close: async () => agent?.agent.close(),
  }
}
