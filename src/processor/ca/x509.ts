/**
 * The one entry to @peculiar/x509: its Reflect polyfill is loaded and Node's WebCrypto set as its
 * provider before any other CA module uses it. Keys are WebCrypto keys; new ones are ECDSA P-256 (what
 * Node's TLS and every client library accept for client certificates), signed with SHA-256.
 */
import 'reflect-metadata'
import * as x509 from '@peculiar/x509'

x509.cryptoProvider.set(globalThis.crypto)

export { x509 }

export const EC_P256 = { name: 'ECDSA', namedCurve: 'P-256' } as const
export const ECDSA_SHA256 = { name: 'ECDSA', hash: 'SHA-256' } as const

/** Certificates and CRLs start a minute early, so that a clock a little behind still accepts them. */
export const BACKDATE_MS = 60_000

export function generateKeyPair(): Promise<CryptoKeyPair> {
  return globalThis.crypto.subtle.generateKey(EC_P256, true, ['sign', 'verify'])
}

export async function privateKeyToPem(key: CryptoKey): Promise<string> {
  return x509.PemConverter.encode(await globalThis.crypto.subtle.exportKey('pkcs8', key), 'PRIVATE KEY')
}

/** A random positive 16-byte serial (RFC 5280 §4.1.2.2) whose first byte is never 0, so its hex keeps 32 digits. */
export function randomSerial(): string {
  const bytes = globalThis.crypto.getRandomValues(new Uint8Array(16))
  bytes[0] = (bytes[0]! & 0x7f) || 1
  return Buffer.from(bytes).toString('hex')
}

/** OpenSSL (Node's `tls` `crl` option) reads only the `X509 CRL` label; @peculiar/x509 writes `CRL`. */
export const crlToPem = (crl: x509.X509Crl) => x509.PemConverter.encode(crl.rawData, 'X509 CRL')
