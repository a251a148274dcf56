/**
 * What the checkout engine will do with the CA's certificates (PROCESSOR.md §4), with node:tls over a
 * real socket: a server that requires a client certificate chained to the CA and checks the CA's CRL
 * accepts a merchant's issued certificate and maps it to the merchant; it refuses, in the handshake and
 * before any application data, no certificate, another CA's, an expired one, and — once the CRL that a
 * revocation announces is loaded into the live context, without a restart — a revoked one.
 */
import assert from 'node:assert/strict'
import type { AddressInfo } from 'node:net'
import { after, before, test } from 'node:test'
import tls from 'node:tls'
import {
  createKeyAndCsr,
  generateMerchantCredentials,
  issueClientCertificate,
  issueServerCertificate,
  openAuthority,
  type CertificateAuthority,
  type MerchantView,
} from '../../src/processor/ca/index.js'
import { x509 } from '../../src/processor/ca/x509.js'
import { certificateChannels, findCertificate, latestRevocationList } from '../../src/processor/db/certificates.js'
import type { Database } from '../../src/processor/db/open-database.js'
import { waitFor, log, startDatabaseAndCa, tempCaDir, type TestCa } from '../../src/devnet/testing/index.js'

interface Credentials {
  key: string
  cert: string
}

let db: Database
let ca: TestCa
let authority: CertificateAuthority
let merchant: MerchantView
let server: tls.Server
let port: number
/** What the server saw: a merchant id per accepted connection, a reason per refused one. */
const accepted: string[] = []
const refused: string[] = []
const DAY_MS = 86_400_000

let stop: () => Promise<void>

before(async () => {
  const started = await startDatabaseAndCa()
  db = started.db
  ca = started.ca
  stop = started.stop
  authority = await ca.authority()
  merchant = await ca.client.createMerchant({ name: 'TLS Store', webhookUrl: 'http://127.0.0.1:3000/hooks' })

  const serverKey = await createKeyAndCsr()
  const serverCert = await issueServerCertificate(authority, ['localhost', '127.0.0.1'], await publicKeyOf(serverKey.keys), validFor(1))
  const context = { key: serverKey.privateKeyPem, cert: serverCert.toString('pem'), ca: [ca.caCertificatePem], requestCert: true, rejectUnauthorized: true }
  server = tls.createServer({ ...context, crl: [(await latestRevocationList(db.pool))!.pem] }, (socket) => {
    void answer(socket)
  })
  server.on('tlsClientError', (error, socket) => refused.push(socket.authorizationError?.toString() ?? (error as NodeJS.ErrnoException).code ?? error.message))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  port = (server.address() as AddressInfo).port

  // The checkout engine's wiring: every replica reloads the newest CRL into its live context on NOTIFY.
  await db.listen([certificateChannels.revoked, certificateChannels.crlRenewed], () => {
    void latestRevocationList(db.pool).then((crl) => server.setSecureContext({ ...context, crl: [crl!.pem] }))
  })
})
after(async () => {
  server?.close()
  await stop?.()
})

/** The merchant of a connection: its certificate's SAN URI, checked against the CA's record of the serial. */
async function answer(socket: tls.TLSSocket): Promise<void> {
  const peer = socket.getPeerCertificate()
  const fromSan = /URI:urn:merchant:(m_[0-9a-f]+)/.exec(peer.subjectaltname ?? '')?.[1]
  const record = await findCertificate(db.pool, peer.serialNumber)
  assert.equal(record?.merchantId, fromSan)
  accepted.push(fromSan!)
  socket.end(`hello ${fromSan}`)
}

function validFor(days: number, startDaysAgo = 0) {
  const notBefore = new Date(Date.now() - startDaysAgo * DAY_MS - 60_000)
  return { notBefore, notAfter: new Date(notBefore.getTime() + days * DAY_MS) }
}

async function publicKeyOf(keys: CryptoKeyPair): Promise<x509.PublicKey> {
  return new x509.PublicKey(await crypto.subtle.exportKey('spki', keys.publicKey))
}

/** A certificate for the test merchant signed outside the API (another CA, or dates the API refuses). */
async function signedBy(signer: CertificateAuthority, validity: { notBefore: Date; notAfter: Date }): Promise<Credentials> {
  const { keys, privateKeyPem } = await createKeyAndCsr()
  const certificate = await issueClientCertificate(signer, merchant, await publicKeyOf(keys), validity)
  return { key: privateKeyPem, cert: certificate.toString('pem') }
}

/** Connects (verifying the server with the CA certificate too) and reads until the server closes. */
function connect(credentials?: Credentials): Promise<{ data: string; error?: string }> {
  return new Promise((resolve) => {
    let data = ''
    let error: string | undefined
    const socket = tls.connect({ host: '127.0.0.1', port, servername: 'localhost', ca: [ca.caCertificatePem], ...credentials })
    socket.on('data', (chunk: Buffer) => (data += chunk.toString()))
    socket.on('error', (e: NodeJS.ErrnoException) => (error = e.code ?? e.message))
    socket.on('close', () => resolve({ data, error }))
  })
}

async function assertRefused(credentials: Credentials | undefined, reason: string): Promise<void> {
  const before = { accepted: accepted.length, refused: refused.length }
  const { data } = await connect(credentials)
  assert.equal(data, '', 'no application data reaches a refused client')
  await waitFor(`the server to refuse (${reason})`, () => refused.length > before.refused)
  assert.equal(refused.at(-1), reason)
  assert.equal(accepted.length, before.accepted, 'the server never saw a secure connection')
}

async function issued(): Promise<Credentials> {
  const credentials = await generateMerchantCredentials(ca.client, merchant.id)
  return { key: credentials.privateKeyPem, cert: credentials.certificate }
}

test('the issued certificate completes the handshake, and the server finds its merchant', async () => {
  const { data, error } = await connect(await issued())
  assert.equal(error, undefined)
  assert.equal(data, `hello ${merchant.id}`)
})

test('no client certificate fails the handshake', async () => {
  await assertRefused(undefined, 'ERR_SSL_PEER_DID_NOT_RETURN_A_CERTIFICATE')
})

test("another CA's certificate for the same merchant fails the handshake", async () => {
  // Every local CA has the same name: the server finds the trusted one by name, and its signature fails.
  const other = await openAuthority({ chainId: 31337, dataDir: tempCaDir() }, log)
  assert.equal(other.certificate.subject, authority.certificate.subject)
  await assertRefused(await signedBy(other, validFor(30)), 'UNABLE_TO_VERIFY_LEAF_SIGNATURE')
})

test('an expired certificate from the right CA fails the handshake', async () => {
  await assertRefused(await signedBy(authority, validFor(1, 10)), 'CERT_HAS_EXPIRED')
})

test('a revoked certificate fails the handshake once the announced CRL is loaded; others still pass', async () => {
  const keep = await issued()
  const revoke = await issued()
  assert.equal((await connect(revoke)).data, `hello ${merchant.id}`)
  const serial = new x509.X509Certificate(revoke.cert).serialNumber
  await ca.client.revokeCertificate(serial, 'keyCompromise')
  await waitFor('the new CRL in the live TLS context', async () => {
    await connect(revoke)
    return refused.at(-1) === 'CERT_REVOKED'
  })
  await assertRefused(revoke, 'CERT_REVOKED')
  assert.equal((await connect(keep)).data, `hello ${merchant.id}`)
})
