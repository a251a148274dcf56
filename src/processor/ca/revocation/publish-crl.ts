/**
 * Certificate revocation lists: signed by the CA, stored in the database and announced there, so every
 * checkout replica loads the new one into its TLS context at once. A revocation and the CRL that lists
 * it commit together. A CRL is valid for CA_CRL_VALIDITY_HOURS and re-signed (same entries, NOTIFY
 * `crl_renewed`) once half of that has passed: OpenSSL refuses every client while its CRL is past
 * nextUpdate, so a CA that is down for long enough fails closed.
 */
import type pg from 'pg'
import {
  certificateChannels,
  findCertificate,
  insertRevocationList,
  latestRevocationList,
  lockRevocationLists,
  markRevoked,
  revokedEntries,
  type CertificateRecord,
  type RevocationList,
  type RevocationNotice,
  type RevocationReason,
  type RevokedEntry,
} from '../../db/index.js'
import type { Database } from '../../db/index.js'
import type { CertificateAuthority } from '../authority/load-authority.js'
import { BACKDATE_MS, crlToPem, x509 } from '../x509.js'

const REASON_CODES: Record<RevocationReason, x509.X509CrlReason> = {
  unspecified: x509.X509CrlReason.unspecified,
  keyCompromise: x509.X509CrlReason.keyCompromise,
  affiliationChanged: x509.X509CrlReason.affiliationChanged,
  superseded: x509.X509CrlReason.superseded,
  cessationOfOperation: x509.X509CrlReason.cessationOfOperation,
  privilegeWithdrawn: x509.X509CrlReason.privilegeWithdrawn,
}

export interface CrlPublisher {
  /** Revokes and publishes the CRL that lists it; undefined for an unknown serial, the record as it was when already revoked. */
  revoke(serial: string, reason: RevocationReason): Promise<{ certificate: CertificateRecord; crlNumber?: number } | undefined>
  /** Publishes a CRL when there is none, half its validity has passed, or the newest is another CA's. */
  renewIfDue(): Promise<RevocationList | undefined>
}

export function crlPublisher(db: Database, authority: CertificateAuthority, validityMs: number): CrlPublisher {
  const publish = async (client: pg.PoolClient, channel: string, notice: (crlNumber: number) => object) => {
    const number = ((await latestRevocationList(client))?.number ?? 0) + 1
    const crl = await signCrl(authority, number, await revokedEntries(client), validityMs)
    await insertRevocationList(client, crl, channel, notice(number))
    return crl
  }
  return {
    revoke: (serial, reason) =>
      db.transaction(async (client) => {
        await lockRevocationLists(client)
        const certificate = await markRevoked(client, serial, reason)
        if (!certificate) {
          const known = await findCertificate(client, serial)
          return known && { certificate: known }
        }
        const notice = (crlNumber: number): RevocationNotice => ({ serial: certificate.serial, merchantId: certificate.merchantId, crlNumber })
        const crl = await publish(client, certificateChannels.revoked, notice)
        return { certificate, crlNumber: crl.number }
      }),
    renewIfDue: () =>
      db.transaction(async (client) => {
        await lockRevocationLists(client)
        const latest = await latestRevocationList(client)
        if (latest && !(await isDue(latest, authority, validityMs))) return undefined
        return publish(client, certificateChannels.crlRenewed, (crlNumber) => ({ crlNumber }))
      }),
  }
}

async function isDue(latest: RevocationList, authority: CertificateAuthority, validityMs: number): Promise<boolean> {
  if (latest.nextUpdate.getTime() - Date.now() < validityMs / 2) return true
  return !(await new x509.X509Crl(latest.pem).verify({ publicKey: authority.certificate }).catch(() => false))
}

async function signCrl(authority: CertificateAuthority, number: number, entries: RevokedEntry[], validityMs: number): Promise<RevocationList> {
  const thisUpdate = new Date(Date.now() - BACKDATE_MS)
  const nextUpdate = new Date(thisUpdate.getTime() + validityMs)
  const crl = await x509.X509CrlGenerator.create({
    issuer: authority.certificate.subjectName,
    thisUpdate,
    nextUpdate,
    signingKey: authority.privateKey,
    signingAlgorithm: authority.signingAlgorithm,
    extensions: [authority.authorityKeyId],
    entries: entries.map((entry) => ({ serialNumber: entry.serial, revocationDate: entry.revokedAt, reason: REASON_CODES[entry.reason] })),
  })
  return { number, pem: crlToPem(crl), thisUpdate, nextUpdate }
}
