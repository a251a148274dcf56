/**
 * End-entity certificates signed by the CA. A merchant's client certificate names the merchant twice:
 * `CN` (its name, or its id when the name is longer than X.509's 64-character CN limit) for people, and
 * the SAN URI `urn:merchant:<id>` for the checkout engine. Extended key usage clientAuth only, so a
 * merchant certificate cannot serve TLS. `issueServerCertificate` gives a TLS server (the checkout
 * engine on the devnet) a certificate merchants verify with the same CA certificate.
 */
import type { CertificateAuthority } from '../authority/load-authority.js'
import { randomSerial, x509 } from '../x509.js'

export interface MerchantName {
  id: string
  name: string
}

export interface Validity {
  notBefore: Date
  notAfter: Date
}

const MAX_CN_LENGTH = 64

export const merchantUri = (merchantId: string) => `urn:merchant:${merchantId}`

export function issueClientCertificate(authority: CertificateAuthority, merchant: MerchantName, publicKey: x509.PublicKey, validity: Validity): Promise<x509.X509Certificate> {
  return signLeaf(authority, {
    commonName: [...merchant.name].length <= MAX_CN_LENGTH ? merchant.name : merchant.id,
    publicKey,
    validity,
    usage: x509.ExtendedKeyUsage.clientAuth,
    names: [{ type: 'url', value: merchantUri(merchant.id) }],
  })
}

/** `hosts`: DNS names and IP addresses the server is reached at; the first is the CN. */
export function issueServerCertificate(authority: CertificateAuthority, hosts: string[], publicKey: x509.PublicKey, validity: Validity): Promise<x509.X509Certificate> {
  return signLeaf(authority, {
    commonName: hosts[0] ?? 'localhost',
    publicKey,
    validity,
    usage: x509.ExtendedKeyUsage.serverAuth,
    names: hosts.map((host) => ({ type: /^[\d.]+$|:/.test(host) ? 'ip' : 'dns', value: host })),
  })
}

interface Leaf {
  commonName: string
  publicKey: x509.PublicKey
  validity: Validity
  usage: x509.ExtendedKeyUsage
  names: x509.JsonGeneralNames
}

async function signLeaf(authority: CertificateAuthority, leaf: Leaf): Promise<x509.X509Certificate> {
  return x509.X509CertificateGenerator.create({
    serialNumber: randomSerial(),
    // A utf8String value is taken as it is; a plain string would be parsed as RFC 4514 (quotes, escapes).
    subject: new x509.Name([{ CN: [{ utf8String: leaf.commonName }] }]),
    issuer: authority.certificate.subjectName,
    notBefore: leaf.validity.notBefore,
    notAfter: leaf.validity.notAfter,
    publicKey: leaf.publicKey,
    signingKey: authority.privateKey,
    signingAlgorithm: authority.signingAlgorithm,
    extensions: [
      new x509.BasicConstraintsExtension(false, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
      new x509.ExtendedKeyUsageExtension([leaf.usage]),
      new x509.SubjectAlternativeNameExtension(leaf.names),
      await x509.SubjectKeyIdentifierExtension.create(leaf.publicKey),
      authority.authorityKeyId,
    ],
  })
}
