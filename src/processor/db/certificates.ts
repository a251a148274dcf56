/**
 * Client certificates and certificate revocation lists (PROCESSOR.md §3, §4). The CA writes them; the
 * checkout engine maps a TLS peer's serial to its merchant with `findCertificate` and keeps its TLS
 * context's CRL current with `latestRevocationList`, reloading on either channel below (and after a
 * listener reconnect). A new CRL and its NOTIFY are one statement, so a replica never hears of a CRL
 * the database does not hold.
 */
import type { Sql } from './open-database.js'

/** NOTIFY channels, both announcing a new row in `revocation_lists`. */
export const certificateChannels = {
  /** A certificate was revoked. Payload: `RevocationNotice` JSON. */
  revoked: 'certificate_revoked',
  /** The CRL was re-signed before its nextUpdate, with the same entries. Payload: `{ crlNumber }` JSON. */
  crlRenewed: 'crl_renewed',
} as const

export interface RevocationNotice {
  serial: string
  merchantId: string
  crlNumber: number
}

/** RFC 5280 §5.3.1 reasons that apply to a merchant's certificate. */
export const revocationReasons = ['unspecified', 'keyCompromise', 'affiliationChanged', 'superseded', 'cessationOfOperation', 'privilegeWithdrawn'] as const
export type RevocationReason = (typeof revocationReasons)[number]

export interface CertificateRecord {
  /** Lower-case hex. */
  serial: string
  merchantId: string
  subject: string
  notBefore: Date
  notAfter: Date
  pem: string
  issuedAt: Date
  revokedAt: Date | null
  revocationReason: RevocationReason | null
}

export interface RevokedEntry {
  serial: string
  revokedAt: Date
  reason: RevocationReason
}

export interface RevocationList {
  number: number
  pem: string
  thisUpdate: Date
  nextUpdate: Date
}

const columns = `serial, merchant_id AS "merchantId", subject, not_before AS "notBefore", not_after AS "notAfter", pem,
  issued_at AS "issuedAt", revoked_at AS "revokedAt", revocation_reason AS "revocationReason"`

/** Serials compare in lower case, whichever way the caller printed them. */
const normal = (serial: string) => serial.toLowerCase()

export async function insertCertificate(sql: Sql, record: Omit<CertificateRecord, 'issuedAt' | 'revokedAt' | 'revocationReason'>): Promise<CertificateRecord> {
  const { rows } = await sql.query<CertificateRecord>(
    `INSERT INTO certificates (serial, merchant_id, subject, not_before, not_after, pem) VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${columns}`,
    [normal(record.serial), record.merchantId, record.subject, record.notBefore, record.notAfter, record.pem],
  )
  return rows[0]!
}

export async function findCertificate(sql: Sql, serial: string): Promise<CertificateRecord | undefined> {
  const { rows } = await sql.query<CertificateRecord>(`SELECT ${columns} FROM certificates WHERE serial = $1`, [normal(serial)])
  return rows[0]
}

/** A merchant's certificates, newest first. */
export async function certificatesOfMerchant(sql: Sql, merchantId: string): Promise<CertificateRecord[]> {
  const { rows } = await sql.query<CertificateRecord>(`SELECT ${columns} FROM certificates WHERE merchant_id = $1 ORDER BY issued_at DESC`, [merchantId])
  return rows
}

/** Marks a certificate revoked; undefined when it is unknown or was already revoked. */
export async function markRevoked(sql: Sql, serial: string, reason: RevocationReason): Promise<CertificateRecord | undefined> {
  const { rows } = await sql.query<CertificateRecord>(
    `UPDATE certificates SET revoked_at = now(), revocation_reason = $2 WHERE serial = $1 AND revoked_at IS NULL RETURNING ${columns}`,
    [normal(serial), reason],
  )
  return rows[0]
}

/** The entries of the next CRL: revoked certificates that have not expired (an expired one fails anyway). */
export async function revokedEntries(sql: Sql): Promise<RevokedEntry[]> {
  const { rows } = await sql.query<RevokedEntry>(
    `SELECT serial, revoked_at AS "revokedAt", revocation_reason AS reason FROM certificates
     WHERE revoked_at IS NOT NULL AND not_after > now() ORDER BY revoked_at, serial`,
  )
  return rows
}

/**
 * Serialises CRL publication until the transaction ends: each new CRL then sees every revocation
 * committed before it, and numbers never collide between CA replicas.
 */
export async function lockRevocationLists(sql: Sql): Promise<void> {
  await sql.query(`SELECT pg_advisory_xact_lock(hashtext('revocation_lists'))`)
}

export async function latestRevocationList(sql: Sql): Promise<RevocationList | undefined> {
  const { rows } = await sql.query<RevocationList & { number: string }>(
    `SELECT number::text AS number, pem, this_update AS "thisUpdate", next_update AS "nextUpdate" FROM revocation_lists ORDER BY number DESC LIMIT 1`,
  )
  return rows[0] && { ...rows[0], number: Number(rows[0].number) }
}

/** Stores a CRL and announces it on `channel` with `payload` JSON, in one statement. */
export async function insertRevocationList(sql: Sql, crl: RevocationList, channel: string, payload: object): Promise<void> {
  await sql.query(
    `WITH inserted AS (INSERT INTO revocation_lists (number, pem, this_update, next_update) VALUES ($1, $2, $3, $4) RETURNING number)
     SELECT pg_notify($5, $6) FROM inserted`,
    [crl.number, crl.pem, crl.thisUpdate, crl.nextUpdate, channel, JSON.stringify(payload)],
  )
}
