/**
 * The typed client of the checkout engine's merchant API (PROCESSOR.md §4, docs/checkout.md "Typed
 * client"): charges, refunds, payment links, the CSV reports and the webhook endpoint over mutual TLS with the merchant's client
 * certificate. Node only: a browser cannot present a client certificate, which is why this is not in the
 * SDK. Answers are the engine's own JSON types; an error status throws `MerchantApiError` with the
 * problem+json body, no answer `MerchantNetworkError` (or `MerchantTimeoutError`).
 */
import type { Response } from 'undici'
import type { ChargeJson, PaymentJson, RefundJson } from '../charges/index.js'
import type { ChargeFilterQuery, CreateChargeRequest, CreatePaymentLinkRequest, CreateRefundRequest, PaymentLinkJson, RefundFilterQuery } from '../checkout/index.js'
import type { RotateWebhookSecretRequest, WebhookEndpointJson, WebhookSecretRotationJson } from '../checkout/index.js'
import { readCredentialFiles, type ClientCredentials } from './credentials.js'
import { MerchantNetworkError } from './errors.js'
import { clientError, createTransport, type Query, type RequestInit, type Transport } from './transport.js'

export interface MerchantClientOptions {
  /** `https://host:port` of the checkout engine. */
  baseUrl: string
  /** The PEMs, or a function asked before each request (a renewed certificate is then picked up). */
  credentials: ClientCredentials | (() => Promise<ClientCredentials>)
  /** Per request, until the answer's headers and between two chunks of a download; default 30 s. */
  timeoutMs?: number
  /** The name the engine's certificate is checked for, when it is not the base URL's host. */
  servername?: string
}

export interface IdempotencyOptions {
  /** The same key and body again replay the first answer (with a fresh payment-page token). */
  idempotencyKey?: string
}

export interface Page {
  /** From the previous page's `nextCursor`. */
  cursor?: string
  /** 1..100; the engine's default when absent. */
  limit?: number
}

export type ListChargesOptions = ChargeFilterQuery & Page

export type ListRefundsOptions = RefundFilterQuery & Page

export const DEFAULT_TIMEOUT_MS = 30_000

export class MerchantClient {
  readonly #http: Transport
  readonly #timeoutMs: number

  constructor({ baseUrl, credentials, timeoutMs = DEFAULT_TIMEOUT_MS, servername }: MerchantClientOptions) {
    this.#timeoutMs = timeoutMs
    this.#http = createTransport({ baseUrl, credentials, timeoutMs, servername })
  }

  /** With the files `npm run admin -- issue-certificate --generate --out-dir <dir>` writes, re-read before each request. */
  static fromCredentialFiles(baseUrl: string, dir: string, options: Omit<MerchantClientOptions, 'baseUrl' | 'credentials'> = {}): MerchantClient {
    return new MerchantClient({ ...options, baseUrl, credentials: () => readCredentialFiles(dir) })
  }

  createCharge(request: CreateChargeRequest, { idempotencyKey }: IdempotencyOptions = {}): Promise<ChargeJson> {
    return this.#json('POST', '/api/v1/charges', { body: request, headers: { 'idempotency-key': idempotencyKey } })
  }

  getCharge(id: string): Promise<ChargeJson> {
    return this.#json('GET', `/api/v1/charges/${encodeURIComponent(id)}`)
  }

  /** One page, newest first. */
  listCharges(options: ListChargesOptions = {}): Promise<{ charges: ChargeJson[]; nextCursor: string | null }> {
    return this.#json('GET', '/api/v1/charges', { query: { ...options } })
  }

  /** Every charge the filter matches, page after page (`limit` per page), each once. */
  async *allCharges(options: Omit<ListChargesOptions, 'cursor'> = {}): AsyncGenerator<ChargeJson> {
    for await (const page of this.#pages((cursor) => this.listCharges({ ...options, cursor }))) yield* page.charges
  }

  cancelCharge(id: string): Promise<ChargeJson> {
    return this.#json('POST', `/api/v1/charges/${encodeURIComponent(id)}/cancel`)
  }

  /** The payments seen for the charge (a reorg's marked `removed`). */
  listChargePayments(id: string): Promise<{ payments: PaymentJson[] }> {
    return this.#json('GET', `/api/v1/charges/${encodeURIComponent(id)}/payments`)
  }

  createRefund(chargeId: string, request: CreateRefundRequest, { idempotencyKey }: IdempotencyOptions = {}): Promise<RefundJson> {
    return this.#json('POST', `/api/v1/charges/${encodeURIComponent(chargeId)}/refunds`, { body: request, headers: { 'idempotency-key': idempotencyKey } })
  }

  listRefunds(chargeId: string): Promise<{ refunds: RefundJson[] }> {
    return this.#json('GET', `/api/v1/charges/${encodeURIComponent(chargeId)}/refunds`)
  }

  /** One page of all the merchant's refunds, newest first (the rows of the refunds report with the same filter). */
  listMerchantRefunds(options: ListRefundsOptions = {}): Promise<{ refunds: RefundJson[]; nextCursor: string | null }> {
    return this.#json('GET', '/api/v1/refunds', { query: { ...options } })
  }

  /** Every refund the filter matches, page after page (`limit` per page), each once. */
  async *allRefunds(options: Omit<ListRefundsOptions, 'cursor'> = {}): AsyncGenerator<RefundJson> {
    for await (const page of this.#pages((cursor) => this.listMerchantRefunds({ ...options, cursor }))) yield* page.refunds
  }

  getRefund(id: string): Promise<RefundJson> {
    return this.#json('GET', `/api/v1/refunds/${encodeURIComponent(id)}`)
  }

  cancelRefund(id: string): Promise<RefundJson> {
    return this.#json('POST', `/api/v1/refunds/${encodeURIComponent(id)}/cancel`)
  }

  createPaymentLink(request: CreatePaymentLinkRequest): Promise<PaymentLinkJson> {
    return this.#json('POST', '/api/v1/payment-links', { body: request })
  }

  getPaymentLink(id: string): Promise<PaymentLinkJson> {
    return this.#json('GET', `/api/v1/payment-links/${encodeURIComponent(id)}`)
  }

  listPaymentLinks(page: Page = {}): Promise<{ paymentLinks: PaymentLinkJson[]; nextCursor: string | null }> {
    return this.#json('GET', '/api/v1/payment-links', { query: { ...page } })
  }

  async *allPaymentLinks(options: Omit<Page, 'cursor'> = {}): AsyncGenerator<PaymentLinkJson> {
    for await (const page of this.#pages((cursor) => this.listPaymentLinks({ ...options, cursor }))) yield* page.paymentLinks
  }

  deactivatePaymentLink(id: string): Promise<PaymentLinkJson> {
    return this.#json('POST', `/api/v1/payment-links/${encodeURIComponent(id)}/deactivate`)
  }

  /** `charges.csv` (RFC 4180) as it arrives, chunk by chunk: the file is never held whole. */
  downloadChargesReport(filter: ChargeFilterQuery = {}): AsyncGenerator<Uint8Array> {
    return this.#download('/api/v1/reports/charges.csv', { ...filter })
  }

  downloadRefundsReport(filter: RefundFilterQuery = {}): AsyncGenerator<Uint8Array> {
    return this.#download('/api/v1/reports/refunds.csv', { ...filter })
  }

  /** The webhook URL and the times of the secrets signing now (never a secret). */
  getWebhookEndpoint(): Promise<WebhookEndpointJson> {
    return this.#json('GET', '/api/v1/webhook-endpoint')
  }

  /** Webhooks, pending ones included, go to `webhookUrl` from their next attempt. */
  setWebhookUrl(webhookUrl: string): Promise<WebhookEndpointJson> {
    return this.#json('PUT', '/api/v1/webhook-endpoint', { body: { webhookUrl } })
  }

  /** A new secret signs from now on, the current ones for `overlapHours` more (24); `secret` is shown in this answer only: install it at once. */
  rotateWebhookSecret(request: RotateWebhookSecretRequest = {}): Promise<WebhookSecretRotationJson> {
    return this.#json('POST', '/api/v1/webhook-endpoint/rotate-secret', { body: request })
  }

  /** Closes the connections; the client is not used after. */
  close(): Promise<void> {
    return this.#http.close()
  }

  #json<T>(method: string, path: string, init: RequestInit = {}): Promise<T> {
    return this.#http.send(method, path, init, async (response, url) => {
      const text = await response.text()
      try {
        return JSON.parse(text) as T
      } catch (error) {
        throw new MerchantNetworkError(`${method} ${url} answered ${response.status} with a body that is not JSON`, url, error)
      }
    })
  }

  async *#pages<T extends { nextCursor: string | null }>(list: (cursor: string | undefined) => Promise<T>): AsyncGenerator<T> {
    let cursor: string | undefined
    do {
      const page = await list(cursor)
      yield page
      cursor = page.nextCursor ?? undefined
    } while (cursor !== undefined)
  }

  /** Requested at the first `next()`; stopping early (`break`) cancels the rest of the body. */
  async *#download(path: string, query: Query): AsyncGenerator<Uint8Array> {
    const response = await this.#http.send('GET', path, { query, headers: { accept: 'text/csv' } }, async (answer: Response, url) => ({ answer, url }))
    try {
      for await (const chunk of response.answer.body ?? []) yield chunk
    } catch (error) {
      throw clientError(error, `downloading ${response.url}`, response.url, this.#timeoutMs)
    }
  }
}
