/**
 * The checkout listener's TLS material: its own key and certificate, and the processor CA's certificate
 * that merchants' client certificates must chain to. On chain 31337 without server files, a fresh key
 * and a 30-day server certificate are issued at every start by the CA (the operator's, or the local one
 * in CA_DATA_DIR); merchants verify it with the same CA certificate they got with their own.
 */
import { readFile } from 'node:fs/promises'
import { createSecureContext } from 'node:tls'
import { issueServerCertificate, openAuthority } from '../../ca/index.js'
import { BACKDATE_MS, generateKeyPair, privateKeyToPem, x509 } from '../../ca/index.js'
import type { CheckoutOptions } from '../../../config/index.js'
import { ConfigError } from '../../../config/index.js'
import type { Logger } from '../../../platform/observability/index.js'

export interface TlsMaterial {
  key: string
  cert: string
  /** The CA certificate clients are verified against. */
  ca: string
}

const ISSUED_SERVER_DAYS = 30

export async function loadTlsMaterial(options: Pick<CheckoutOptions, 'chainId' | 'tls'>, log: Logger): Promise<TlsMaterial> {
  const { tls } = options
  let material: TlsMaterial
  if (tls.server) {
    material = {
      key: await readPem(tls.server.keyPath, 'CHECKOUT_TLS_KEY_PATH'),
      cert: await readPem(tls.server.certPath, 'CHECKOUT_TLS_CERT_PATH'),
      ca: tls.ca ? await readPem(tls.ca.certPath, 'CA_CERT_PATH') : (await openAuthority({ chainId: options.chainId, dataDir: tls.caDataDir }, log)).certificatePem,
    }
  } else {
    const files = tls.ca?.keyPath ? { certPath: tls.ca.certPath, keyPath: tls.ca.keyPath } : undefined
    const authority = await openAuthority({ chainId: options.chainId, dataDir: tls.caDataDir, files }, log)
    const keys = await generateKeyPair()
    const notBefore = new Date(Date.now() - BACKDATE_MS)
    const notAfter = new Date(notBefore.getTime() + ISSUED_SERVER_DAYS * 86_400_000)
    const publicKey = new x509.PublicKey(await globalThis.crypto.subtle.exportKey('spki', keys.publicKey))
    const certificate = await issueServerCertificate(authority, tls.hosts, publicKey, { notBefore, notAfter })
    material = { key: await privateKeyToPem(keys.privateKey), cert: certificate.toString('pem'), ca: authority.certificatePem }
    log.info('issued the checkout server certificate', { hosts: tls.hosts, notAfter })
  }
  try {
    createSecureContext(material)
  } catch (error) {
    const settings = tls.server ? 'CHECKOUT_TLS_CERT_PATH / CHECKOUT_TLS_KEY_PATH / CA_CERT_PATH' : 'CA_CERT_PATH / CA_DATA_DIR'
    throw new ConfigError(`${settings}: the TLS material is unusable: ${(error as Error).message}`, { cause: error })
  }
  return material
}

async function readPem(path: string, setting: string): Promise<string> {
  try {
    return await readFile(path, 'utf8')
  } catch (error) {
    throw new ConfigError(`${setting}: ${path} cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`, { cause: error })
  }
}
