/**
 * The admin API over HTTP, for `npm run admin`, `generateMerchantCredentials` and tests. A problem
 * answer becomes a CaApiError carrying the status and the server's one-line detail.
 */
import { BaseError } from '../../../errors/index.js'
import type { Hex } from 'viem'
import type { RevocationReason } from '../../db/index.js'

export interface MerchantView {
  id: string
  name: string
  webhookUrl: string
  acquirerId: Hex | null
  createdAt: string
}

export interface CertificateView {
  serial: string
  merchantId: string
  subject: string
  notBefore: string
  notAfter: string
  issuedAt: string
  revokedAt: string | null
  revocationReason: RevocationReason | null
}

export interface IssuedCertificate extends CertificateView {
  certificate: string
  caCertificate: string
}

/** The CA's admin API refused a request or failed; 5xx is worth retrying, 4xx is not. */
export class CaApiError extends BaseError {
  override name = 'CaApiError'
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message, { details: { status }, retryable: status >= 500 })
  }
}

export interface CaClientParams {
  /** e.g. http://127.0.0.1:4005 */
  url: string
  token?: string
}

export class CaClient {
  constructor(private readonly params: CaClientParams) {}

  createMerchant(merchant: { name: string; webhookUrl: string; acquirerId?: string }): Promise<MerchantView> {
    return this.request('POST', '/merchants', merchant)
  }

  getMerchant(id: string): Promise<MerchantView & { certificates: CertificateView[] }> {
    return this.request('GET', `/merchants/${encodeURIComponent(id)}`)
  }

  issueCertificate(merchantId: string, csr: string, validityDays?: number): Promise<IssuedCertificate> {
    return this.request('POST', `/merchants/${encodeURIComponent(merchantId)}/certificates`, { csr, ...(validityDays !== undefined && { validityDays }) })
  }

  revokeCertificate(serial: string, reason?: RevocationReason): Promise<CertificateView & { crlNumber?: number }> {
    return this.request('POST', `/certificates/${encodeURIComponent(serial)}/revoke`, reason === undefined ? undefined : { reason })
  }

  async crl(): Promise<string> {
    return (await this.send('GET', '/crl')).text()
  }

  private async request<T>(method: string, path: string, body?: object): Promise<T> {
    return (await (await this.send(method, path, body)).json()) as T
  }

  private async send(method: string, path: string, body?: object): Promise<Response> {
    const headers: Record<string, string> = {}
    if (this.params.token) headers.authorization = `Bearer ${this.params.token}`
    if (body) headers['content-type'] = 'application/json'
    let response: Response
    try {
      response = await fetch(`${this.params.url.replace(/\/+$/, '')}${path}`, { method, headers, body: body && JSON.stringify(body) })
    } catch (error) {
      throw new CaApiError(0, `the CA at ${this.params.url} does not answer (${((error as Error).cause as Error | undefined)?.message ?? (error as Error).message})`)
    }
    if (response.ok) return response
    const problem = (await response.json().catch(() => ({}))) as { detail?: string }
    throw new CaApiError(response.status, `${method} ${path}: ${response.status} ${problem.detail ?? response.statusText}`)
  }
}
