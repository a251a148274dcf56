/**
 * The CA's certificate and private key from PEM files, checked before anything is signed with them: a
 * CA certificate (basicConstraints cA), not expired, allowed to sign certificates and CRLs, and the key
 * its public key belongs to. The key is read by node:crypto (PKCS#8, SEC1 or PKCS#1 PEM, unencrypted)
 * and handed to WebCrypto, which @peculiar/x509 signs with.
 */
import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { ConfigError } from '../../../config/index.js'
import { x509 } from '../x509.js'

export interface CertificateAuthority {
  certificate: x509.X509Certificate
  certificatePem: string
  privateKey: CryptoKey
  /** What `signingAlgorithm` of @peculiar/x509 wants for this key. */
  signingAlgorithm: Algorithm
  /** For what the CA signs: the CA certificate's own key identifier, so that verifiers match the two. */
  authorityKeyId: x509.AuthorityKeyIdentifierExtension
}

/** The setting names a failure names, so that the one error line points at what to fix. */
export interface AuthoritySources {
  certPath: string
  keyPath: string
  certSetting: string
  keySetting: string
}

export async function loadAuthority(sources: AuthoritySources, now = new Date()): Promise<CertificateAuthority> {
  const certificatePem = await readSetting(sources.certPath, sources.certSetting)
  const keyPem = await readSetting(sources.keyPath, sources.keySetting)
  const fail = (setting: string, problem: string) => new ConfigError(`${setting}: ${problem}`)

  let certificate: x509.X509Certificate
  try {
    certificate = new x509.X509Certificate(certificatePem)
  } catch {
    throw fail(sources.certSetting, `${sources.certPath} is not a PEM certificate`)
  }
  if (!certificate.getExtension(x509.BasicConstraintsExtension)?.ca) throw fail(sources.certSetting, `${sources.certPath} is not a CA certificate (basicConstraints cA)`)
  if (certificate.notAfter <= now) throw fail(sources.certSetting, `the CA certificate in ${sources.certPath} expired on ${certificate.notAfter.toISOString()}`)
  const usages = certificate.getExtension(x509.KeyUsagesExtension)?.usages
  const needed = x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign
  if (usages !== undefined && (usages & needed) !== needed) throw fail(sources.certSetting, `the CA certificate in ${sources.certPath} may not sign certificates and CRLs (keyUsage)`)

  let key: KeyObject
  try {
    key = createPrivateKey(keyPem)
  } catch (error) {
    throw fail(sources.keySetting, `${sources.keyPath} is not an unencrypted PEM private key (${(error as Error).message})`)
  }
  const publicKey = createPublicKey(key).export({ type: 'spki', format: 'der' })
  if (!publicKey.equals(Buffer.from(certificate.publicKey.rawData))) throw fail(sources.keySetting, `${sources.keyPath} is not the key of the CA certificate in ${sources.certPath}`)
  const algorithm = webCryptoAlgorithm(key)
  if (!algorithm) throw fail(sources.keySetting, `${sources.keyPath} is a ${key.asymmetricKeyType} key; the CA signs with ECDSA (P-256, P-384) or RSA`)
  const privateKey = await globalThis.crypto.subtle.importKey('pkcs8', key.export({ type: 'pkcs8', format: 'der' }), algorithm.importAs, false, ['sign'])
  const subjectKeyId = certificate.getExtension(x509.SubjectKeyIdentifierExtension)?.keyId
  const authorityKeyId = subjectKeyId ? new x509.AuthorityKeyIdentifierExtension(subjectKeyId) : await x509.AuthorityKeyIdentifierExtension.create(certificate.publicKey)
  return { certificate, certificatePem: certificate.toString('pem'), privateKey, signingAlgorithm: algorithm.signWith, authorityKeyId }
}

async function readSetting(path: string, setting: string): Promise<string> {
  try {
    return await readFile(path, 'utf8')
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'does not exist' : `cannot be read (${(error as Error).message})`
    throw new ConfigError(`${setting}: ${path} ${reason}`, { cause: error })
  }
}

const CURVES: Record<string, { namedCurve: string; hash: string }> = {
  prime256v1: { namedCurve: 'P-256', hash: 'SHA-256' },
  secp384r1: { namedCurve: 'P-384', hash: 'SHA-384' },
}

function webCryptoAlgorithm(key: KeyObject): { importAs: EcKeyImportParams | RsaHashedImportParams; signWith: Algorithm } | undefined {
  if (key.asymmetricKeyType === 'rsa') {
    return { importAs: { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' }, signWith: { name: 'RSASSA-PKCS1-v1_5' } }
  }
  const curve = key.asymmetricKeyType === 'ec' ? CURVES[key.asymmetricKeyDetails?.namedCurve ?? ''] : undefined
  if (!curve) return undefined
  return { importAs: { name: 'ECDSA', namedCurve: curve.namedCurve }, signWith: { name: 'ECDSA', hash: curve.hash } as Algorithm }
}
