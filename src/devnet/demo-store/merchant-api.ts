/**
 * The store's client of the checkout engine's merchant API (PROCESSOR.md §4), over mutual TLS with the
 * demo merchant's client certificate, verifying the server against the CA certificate that came with
 * it. Credentials are read from the merchant directory when they change, so a certificate renewed by
 * `setUpDemoMerchant` is used without a restart.
 */
import { Agent, fetch } from 'undici'
import { BaseError } from '../../errors/index.js'
import type { ChargeJson } from '../../processor/charges/index.js'
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
  close(): Promise<void>
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
  return {
    async createCharge(request, idempotencyKey) {
      const response = await fetch(`${checkoutUrl}/api/v1/charges`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'idempotency-key': idempotencyKey },
        body: JSON.stringify(request),
        dispatcher: await dispatcher(),
      }).catch((error: Error) => {
        throw new MerchantApiError(`the merchant API at ${checkoutUrl} does not answer (${(error.cause as Error | undefined)?.message ?? error.message})`, { cause: error, retryable: true })
      })
      const body = (await response.json().catch(() => ({}))) as ChargeJson & { detail?: string }
      if (response.status !== 201) throw new MerchantApiError(`charge creation answered ${response.status}: ${body.detail ?? response.statusText}`, { details: { status: response.status }, retryable: response.status >= 500 })
      return body
    },
    close: async () => agent?.agent.close(),
  }
}
