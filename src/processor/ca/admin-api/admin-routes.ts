/**
 * The admin API's routes (PROCESSOR.md §3). Every change is logged at info with who it concerns, as
 * the CA's audit trail; bodies are validated by `parse-bodies.ts` before anything is read or signed.
 * The operator's `/health`, `/ready` and `/metrics` need no token, like the CRL.
 */
import { certificatesOfMerchant, insertCertificate, latestRevocationList, type CertificateRecord } from '../../db/index.js'
import { findMerchant, insertMerchant, type Merchant } from '../../db/index.js'
import type { Database } from '../../db/index.js'
import { databaseUnavailable } from '../../db/index.js'
import type { Logger, Metrics } from '../../../platform/observability/index.js'
import { badParam, json, metricsReply, ProblemError, problemReply, readyReply, type Reply } from '../../../platform/http/index.js'
import type { CertificateAuthority } from '../authority/load-authority.js'
import { issueClientCertificate } from '../issue/issue-certificate.js'
import { CsrError, readCsr } from '../issue/read-csr.js'
import type { CrlPublisher } from '../revocation/publish-crl.js'
import { BACKDATE_MS } from '../x509.js'
import { parseCertificateRequest, parseNewMerchant, parseRevocation, parseSerial } from './parse-bodies.js'
import type { AdminRoute } from './serve-admin-api.js'

export interface AdminContext {
  db: Database
  authority: CertificateAuthority
  crl: CrlPublisher
  /** Off the local chain a webhook URL must be https. */
  httpsOnlyWebhooks: boolean
  metrics: Metrics
  log: Logger
}

export const PEM_TYPE = 'application/x-pem-file'
const DAY_MS = 86_400_000

export function adminRoutes(ctx: AdminContext): AdminRoute[] {
  return [
    { method: 'POST', url: '/merchants', body: 'required', handle: (_, body) => createMerchant(ctx, body) },
    { method: 'GET', url: '/merchants/:id', handle: ([id]) => showMerchant(ctx, id!) },
    { method: 'POST', url: '/merchants/:id/certificates', body: 'required', handle: ([id], body) => issueCertificate(ctx, id!, body) },
    { method: 'POST', url: '/certificates/:serial/revoke', body: 'optional', handle: ([serial], body) => revokeCertificate(ctx, serial!, body) },
    { method: 'GET', url: '/crl', public: true, handle: () => currentCrl(ctx) },
    { method: 'GET', url: '/health', public: true, handle: () => health(ctx) },
    { method: 'GET', url: '/ready', public: true, handle: () => readyReply(() => notReady(ctx)) },
    { method: 'GET', url: '/metrics', public: true, handle: async () => metricsReply(ctx.metrics) },
  ]
}

async function createMerchant({ db, httpsOnlyWebhooks, log }: AdminContext, body: unknown): Promise<Reply> {
  const merchant = await insertMerchant(db.pool, parseNewMerchant(body, { httpsOnly: httpsOnlyWebhooks }))
  log.info('merchant created', { merchantId: merchant.id, name: merchant.name })
  return { ...json(JSON.stringify(merchantJson(merchant)), 201), headers: { location: `/merchants/${merchant.id}` } }
}

async function showMerchant({ db }: AdminContext, id: string): Promise<Reply> {
  const merchant = await requireMerchant(db, id)
  const certificates = await certificatesOfMerchant(db.pool, merchant.id)
  return json(JSON.stringify({ ...merchantJson(merchant), certificates: certificates.map(certificateJson) }))
}

async function issueCertificate({ db, authority, log }: AdminContext, merchantId: string, body: unknown): Promise<Reply> {
  const { csr, validityDays } = parseCertificateRequest(body)
  const merchant = await requireMerchant(db, merchantId)
  const publicKey = await readCsr(csr).catch((error: unknown) => {
    throw error instanceof CsrError ? badParam('csr', error.message) : error
  })
  // Whole seconds: X.509 times have no more, and the record must equal the certificate.
  const now = Math.floor(Date.now() / 1000) * 1000
  const notAfter = new Date(Math.min(now + validityDays * DAY_MS, authority.certificate.notAfter.getTime()))
  const certificate = await issueClientCertificate(authority, merchant, publicKey, { notBefore: new Date(now - BACKDATE_MS), notAfter })
  const record = await insertCertificate(db.pool, {
    serial: certificate.serialNumber,
    merchantId: merchant.id,
    subject: certificate.subject,
    notBefore: certificate.notBefore,
    notAfter: certificate.notAfter,
    pem: certificate.toString('pem'),
  })
  log.info('certificate issued', { merchantId: merchant.id, serial: record.serial, notAfter: record.notAfter })
  const issued = { ...certificateJson(record), certificate: record.pem, caCertificate: authority.certificatePem }
  return { ...json(JSON.stringify(issued), 201), headers: { location: `/merchants/${merchant.id}` } }
}

async function revokeCertificate({ crl, log }: AdminContext, serialParam: string, body: unknown): Promise<Reply> {
  const serial = parseSerial(serialParam)
  const { reason } = parseRevocation(body)
  const result = await crl.revoke(serial, reason)
  if (!result) throw new ProblemError(404, `no certificate with serial ${serial}`)
  if (result.crlNumber !== undefined) log.info('certificate revoked', { serial, merchantId: result.certificate.merchantId, reason, crlNumber: result.crlNumber })
  return json(JSON.stringify({ ...certificateJson(result.certificate), ...(result.crlNumber !== undefined && { crlNumber: result.crlNumber }) }))
}

async function currentCrl({ db }: AdminContext): Promise<Reply> {
  const crl = await latestRevocationList(db.pool)
  if (!crl) return problemReply(503, 'no CRL has been published yet')
  return { status: 200, body: crl.pem, contentType: PEM_TYPE, headers: { 'cache-control': 'no-cache' } }
}

async function health({ db, authority }: AdminContext): Promise<Reply> {
  const crl = await latestRevocationList(db.pool).catch(() => null)
  if (crl === null) return problemReply(503, 'the database does not answer')
  const ca = { subject: authority.certificate.subject, notAfter: authority.certificate.notAfter.toISOString() }
  return json(JSON.stringify({ status: 'ok', ca, crl: crl && { number: crl.number, thisUpdate: crl.thisUpdate.toISOString(), nextUpdate: crl.nextUpdate.toISOString() } }))
}

/** Issuing and revoking need the database, and clients check certificates against a current CRL. */
async function notReady({ db }: AdminContext): Promise<string | undefined> {
  const unavailable = await databaseUnavailable(db.pool)
  if (unavailable) return unavailable
  const crl = await latestRevocationList(db.pool)
  if (!crl) return 'no CRL has been published yet'
  if (crl.nextUpdate.getTime() < Date.now()) return `the CRL ${crl.number} expired at ${crl.nextUpdate.toISOString()} and has not been renewed`
}

async function requireMerchant(db: Database, id: string): Promise<Merchant> {
  const merchant = await findMerchant(db.pool, id)
  if (!merchant) throw new ProblemError(404, `no merchant ${id.slice(0, 64)}`)
  return merchant
}

function merchantJson(merchant: Merchant) {
  const { id, name, webhookUrl, acquirerId, createdAt } = merchant
  return { id, name, webhookUrl, acquirerId, createdAt: createdAt.toISOString() }
}

function certificateJson(record: CertificateRecord) {
  return {
    serial: record.serial,
    merchantId: record.merchantId,
    subject: record.subject,
    notBefore: record.notBefore.toISOString(),
    notAfter: record.notAfter.toISOString(),
    issuedAt: record.issuedAt.toISOString(),
    revokedAt: record.revokedAt?.toISOString() ?? null,
    revocationReason: record.revocationReason,
  }
}
