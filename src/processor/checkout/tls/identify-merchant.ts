/**
 * The merchant of a request is its client certificate's (PROCESSOR.md §4). The handshake has already
 * proved the certificate chains to the processor CA, is unexpired and is not on the loaded CRL; here the
 * SAN URI `urn:merchant:<id>` names the merchant, and the database must know the certificate's serial for
 * that merchant and not have it revoked. That last check runs on every request, so a connection opened
 * before a revocation cannot outlive it. A merchant the database does not know is named as such first:
 * it happens when the CA's files outlive the database (npm start begins with an empty embedded one).
 */
import type { TLSSocket } from 'node:tls'
import { findCertificate } from '../../db/index.js'
import { findMerchant, type Merchant } from '../../db/index.js'
import type { Sql } from '../../db/index.js'
import { ProblemError } from '../../../platform/http/index.js'

const MERCHANT_SAN = /(?:^|, )URI:urn:merchant:(m_[0-9a-f]{24})(?:,|$)/

export async function identifyMerchant(sql: Sql, socket: TLSSocket): Promise<Merchant> {
  const peer = socket.authorized ? socket.getPeerCertificate() : undefined
  if (!peer?.serialNumber) throw new ProblemError(401, 'no verified client certificate')
  const merchantId = MERCHANT_SAN.exec(peer.subjectaltname ?? '')?.[1]
  if (!merchantId) throw new ProblemError(401, 'the client certificate names no merchant (SAN urn:merchant:<id>)')
  const merchant = await findMerchant(sql, merchantId)
  if (!merchant) {
    throw new ProblemError(
      401,
      `merchant ${merchantId} is unknown to this processor: its database holds no such merchant (with the embedded database, npm start begins empty each time; create the merchant again with npm run admin -- create-merchant)`,
    )
  }
  const certificate = await findCertificate(sql, peer.serialNumber)
  if (!certificate || certificate.merchantId !== merchantId) throw new ProblemError(401, `certificate ${peer.serialNumber.toLowerCase()} was not issued to ${merchantId}`)
  if (certificate.revokedAt) throw new ProblemError(401, `certificate ${certificate.serial} was revoked`)
  return merchant
}
