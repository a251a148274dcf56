/**
 * A merchant's TLS client credentials made the way the CA expects: the key pair and the CSR are created
 * here, only the CSR goes to the CA, and the private key never leaves this machine. `npm run admin --
 * issue-certificate <merchant> --generate` uses it for the demo merchant; a real merchant runs the
 * equivalent (or `openssl req -new`) on its own server and sends the CSR.
 */
import { mkdir, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { ECDSA_SHA256, generateKeyPair, privateKeyToPem, x509 } from '../x509.js'
import type { CaClient, IssuedCertificate } from './ca-client.js'

export interface KeyAndCsr {
  keys: CryptoKeyPair
  privateKeyPem: string
  csrPem: string
}

export interface MerchantCredentials extends IssuedCertificate {
  privateKeyPem: string
}

/** An ECDSA P-256 key and a CSR signed with it; the subject is the CA's to decide. */
export async function createKeyAndCsr(commonName = 'merchant'): Promise<KeyAndCsr> {
  const keys = await generateKeyPair()
  const csr = await x509.Pkcs10CertificateRequestGenerator.create({ name: new x509.Name([{ CN: [{ utf8String: commonName }] }]), keys, signingAlgorithm: ECDSA_SHA256 })
  return { keys, privateKeyPem: await privateKeyToPem(keys.privateKey), csrPem: csr.toString('pem') }
}

export async function generateMerchantCredentials(client: CaClient, merchantId: string, validityDays?: number): Promise<MerchantCredentials> {
  const { privateKeyPem, csrPem } = await createKeyAndCsr(merchantId)
  return { ...(await client.issueCertificate(merchantId, csrPem, validityDays)), privateKeyPem }
}

export const credentialFiles = { key: 'client.key.pem', certificate: 'client.crt.pem', caCertificate: 'ca.crt.pem' } as const

/** Writes `client.key.pem` (mode 0600), `client.crt.pem` and `ca.crt.pem` into `dir`. */
export async function writeMerchantCredentials(dir: string, credentials: MerchantCredentials): Promise<void> {
  await mkdir(dir, { recursive: true })
  // A file's mode is set when it is created: replace an older key rather than write into it.
  const keyPath = join(dir, credentialFiles.key)
  await rm(keyPath, { force: true })
  await writeFile(keyPath, credentials.privateKeyPem, { mode: 0o600, flag: 'wx' })
  await writeFile(join(dir, credentialFiles.certificate), credentials.certificate)
  await writeFile(join(dir, credentialFiles.caCertificate), credentials.caCertificate)
}
