/**
 * A merchant's PKCS#10 certificate signing request, as the CA accepts it: one PEM `CERTIFICATE REQUEST`
 * whose signature verifies with the public key it carries (proof the requester holds the private key)
 * and whose key TLS clients can use: ECDSA P-256/P-384 or RSA of at least 2048 bits. Only the key is
 * taken; the subject and extensions asked for are ignored, the CA decides them.
 */
import { createPublicKey } from 'node:crypto'
import { BaseError } from '../../../errors/index.js'
import { x509 } from '../x509.js'

/** A CSR the CA refuses: bad input, never retryable. */
export class CsrError extends BaseError {
  override name = 'CsrError'
}

const PEM = /^\s*-----BEGIN (NEW )?CERTIFICATE REQUEST-----\r?\n[A-Za-z0-9+/=\r\n]+-----END (NEW )?CERTIFICATE REQUEST-----\s*$/
const MIN_RSA_BITS = 2048

export async function readCsr(pem: string): Promise<x509.PublicKey> {
  if (!PEM.test(pem)) throw new CsrError('the CSR must be one PEM block "-----BEGIN CERTIFICATE REQUEST-----"')
  let csr: x509.Pkcs10CertificateRequest
  try {
    csr = new x509.Pkcs10CertificateRequest(pem)
  } catch (error) {
    throw new CsrError('the CSR is not a valid PKCS#10 certificate request', { cause: error })
  }
  checkKey(csr.publicKey)
  const verified = await csr.verify().catch(() => false)
  if (!verified) throw new CsrError("the CSR's signature does not verify with its public key")
  return csr.publicKey
}

function checkKey(publicKey: x509.PublicKey): void {
  let key
  try {
    key = createPublicKey({ key: Buffer.from(publicKey.rawData), format: 'der', type: 'spki' })
  } catch (error) {
    throw new CsrError("the CSR's public key cannot be read", { cause: error })
  }
  const { namedCurve, modulusLength } = key.asymmetricKeyDetails ?? {}
  const ec = key.asymmetricKeyType === 'ec' && (namedCurve === 'prime256v1' || namedCurve === 'secp384r1')
  const rsa = key.asymmetricKeyType === 'rsa' && (modulusLength ?? 0) >= MIN_RSA_BITS
  if (!ec && !rsa) throw new CsrError(`the CSR's key must be ECDSA P-256 or P-384, or RSA of at least ${MIN_RSA_BITS} bits`)
}
