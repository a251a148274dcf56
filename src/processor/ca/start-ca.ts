/**
 * Composes the certificate authority (PROCESSOR.md §3): the CA's key and certificate (the operator's,
 * or the devnet's local one), the admin token, a current CRL in the database, and the admin API on a
 * loopback address. The database is handed in, so `npm start` can share one; `stop()` leaves it open.
 */
import type { CaOptions } from '../../config/index.js'
import { LOCAL_CHAIN_ID } from '../../config/index.js'
import type { ProcessorServices } from '../db/index.js'
import { serviceMetrics } from '../../platform/observability/index.js'
import { adminRoutes } from './admin-api/admin-routes.js'
import { serveAdminApi } from './admin-api/serve-admin-api.js'
import { resolveAdminToken } from './admin-token.js'
import { openAuthority } from './authority/open-authority.js'
import { crlPublisher } from './revocation/publish-crl.js'

export interface RunningCa {
  url: string
  caCertificatePem: string
  /** The local admin token's file (chain 31337 without CA_ADMIN_TOKEN). */
  adminTokenFile?: string
  stop(): Promise<void>
}

export type CaServices = ProcessorServices

/** How often the CRL's age is looked at, at most. */
const MAX_RENEW_CHECK_MS = 3_600_000

export async function startCa(options: CaOptions, { db, log, metrics = serviceMetrics('ca') }: CaServices): Promise<RunningCa> {
  const authority = await openAuthority(options, log)
  const admin = await resolveAdminToken(options)
  const validityMs = options.crlValidityHours * 3_600_000
  const crl = crlPublisher(db, authority, validityMs)
  await crl.renewIfDue()
  const renewal = setInterval(() => {
    crl.renewIfDue().then(
      (renewed) => renewed && log.info('CRL renewed', { crlNumber: renewed.number, nextUpdate: renewed.nextUpdate }),
      (error: unknown) => log.warn('CRL renewal failed; retrying', { error }),
    )
  }, Math.min(validityMs / 8, MAX_RENEW_CHECK_MS))
  renewal.unref()

  const httpsOnlyWebhooks = options.chainId !== LOCAL_CHAIN_ID
  const server = await serveAdminApi({ host: options.host, port: options.port, token: admin.token, routes: adminRoutes({ db, authority, crl, httpsOnlyWebhooks, metrics, log }), metrics, log }).catch(
    (error: unknown) => {
      clearInterval(renewal)
      throw error
    },
  )
  log.info('certificate authority listening', {
    url: server.url,
    ca: authority.certificate.subject,
    caNotAfter: authority.certificate.notAfter,
    ...(admin.file ? { adminTokenFile: admin.file } : {}),
  })
  return {
    url: server.url,
    caCertificatePem: authority.certificatePem,
    adminTokenFile: admin.file,
    async stop() {
      clearInterval(renewal)
      await server.close()
      log.info('certificate authority stopped')
    },
  }
}
