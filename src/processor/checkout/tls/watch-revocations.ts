/**
 * Revocation without a restart (PROCESSOR.md §4): the newest CRL in PostgreSQL is loaded into the live TLS
 * context at start, again whenever the CA announces one (`certificate_revoked`, `crl_renewed`) and after
 * the listener reconnects (announcements sent meanwhile are gone). New handshakes use it at once; a
 * connection opened before the revocation is refused at its next request (see `identify-merchant.ts`).
 */
import { certificateChannels, latestRevocationList } from '../../db/index.js'
import type { Database } from '../../db/index.js'
import type { Listener } from '../../db/index.js'
import type { Logger } from '../../../platform/observability/index.js'

export interface RevocationWatch {
  /** The number of the CRL in the live context, if any. */
  crlNumber(): number | undefined
  close(): Promise<void>
}

export interface WatchRevocationsParams {
  db: Database
  /** Puts a CRL (PEM) into the live TLS context; throws when it is unusable. */
  apply(crlPem: string): void
  log: Logger
}

export async function watchRevocations({ db, apply, log }: WatchRevocationsParams): Promise<RevocationWatch> {
  let loaded: number | undefined
  // Reloads run one after another, so an older CRL read late never replaces a newer one.
  let queue = Promise.resolve()
  const reload = () => {
    queue = queue.then(async () => {
      try {
        const crl = await latestRevocationList(db.pool)
        if (!crl || (loaded !== undefined && crl.number <= loaded)) return
        apply(crl.pem)
        loaded = crl.number
        log.info('CRL loaded into the TLS context', { crlNumber: crl.number, nextUpdate: crl.nextUpdate })
      } catch (error) {
        log.error('CRL reload failed; the previous one stays in force', { error })
      }
    })
    return queue
  }
  const listener: Listener = await db.listen([certificateChannels.revoked, certificateChannels.crlRenewed], () => void reload(), () => void reload())
  await reload()
  return {
    crlNumber: () => loaded,
    async close() {
      await listener.close()
      await queue
    },
  }
}
