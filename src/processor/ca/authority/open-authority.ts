/**
 * The CA a process signs with: the operator's (CA_CERT_PATH, CA_KEY_PATH), or on chain 31337 a local one
 * in CA_DATA_DIR (`ca.crt.pem`, `ca.key.pem` mode 0600), created on first start and reused after. A
 * local CA is never created on another chain: a CA whose key sits in a working directory must not
 * authenticate merchants anywhere real.
 */
import { existsSync } from 'node:fs'
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { CaOptions } from '../../../config/index.js'
import { LOCAL_CHAIN_ID } from '../../../config/index.js'
import { ConfigError } from '../../../config/index.js'
import type { Logger } from '../../../platform/observability/index.js'
import { BACKDATE_MS, ECDSA_SHA256, generateKeyPair, privateKeyToPem, randomSerial, x509 } from '../x509.js'
import { loadAuthority, type CertificateAuthority } from './load-authority.js'

const LOCAL_CA_YEARS = 10

export const localAuthorityPaths = (dataDir: string) => ({ certPath: join(dataDir, 'ca.crt.pem'), keyPath: join(dataDir, 'ca.key.pem') })

export async function openAuthority(options: Pick<CaOptions, 'chainId' | 'dataDir' | 'files'>, log: Logger): Promise<CertificateAuthority> {
  if (options.files) return loadAuthority({ ...options.files, certSetting: 'CA_CERT_PATH', keySetting: 'CA_KEY_PATH' })
  if (options.chainId !== LOCAL_CHAIN_ID) {
    throw new ConfigError(`CA_CERT_PATH and CA_KEY_PATH are required on chain ${options.chainId}: a local CA is only created on chain ${LOCAL_CHAIN_ID}`)
  }
  const { certPath, keyPath } = localAuthorityPaths(options.dataDir)
  const sources = { certPath, keyPath, certSetting: 'CA_DATA_DIR', keySetting: 'CA_DATA_DIR' }
  const [haveCert, haveKey] = [existsSync(certPath), existsSync(keyPath)]
  if (haveCert && haveKey) return loadAuthority(sources)
  if (haveCert || haveKey) {
    throw new ConfigError(`CA_DATA_DIR: ${haveCert ? certPath : keyPath} exists without ${haveCert ? keyPath : certPath}; remove it, or set CA_CERT_PATH and CA_KEY_PATH`)
  }
  await createLocalAuthority(options.dataDir, certPath, keyPath)
  log.info('created a local certificate authority (chain 31337 only)', { certPath, keyPath })
  return loadAuthority(sources)
}

async function createLocalAuthority(dataDir: string, certPath: string, keyPath: string): Promise<void> {
  const keys = await generateKeyPair()
  const notBefore = new Date(Date.now() - BACKDATE_MS)
  const notAfter = new Date(notBefore)
  notAfter.setUTCFullYear(notAfter.getUTCFullYear() + LOCAL_CA_YEARS)
  const certificate = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: randomSerial(),
    name: new x509.Name([{ CN: [{ utf8String: `Settlement processor local CA (chain ${LOCAL_CHAIN_ID})` }] }]),
    notBefore,
    notAfter,
    keys,
    signingAlgorithm: ECDSA_SHA256,
    extensions: [
      new x509.BasicConstraintsExtension(true, 0, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  })
  await mkdir(dataDir, { recursive: true, mode: 0o700 })
  // 'wx': never overwrite. A crash between the two writes leaves one file, which the next start names.
  await writeFile(keyPath, await privateKeyToPem(keys.privateKey), { mode: 0o600, flag: 'wx' })
  await writeFile(certPath, certificate.toString('pem'), { flag: 'wx' })
}
