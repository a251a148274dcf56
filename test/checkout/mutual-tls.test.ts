/**
 * The merchant API's mutual TLS (PROCESSOR.md §4) over real sockets: the handshake fails for no client
 * certificate, another CA's, an expired one, and one revoked through the real CA while the engine runs
 * (the announced CRL is loaded into the live context, no restart); a valid certificate gets through,
 * and the request's merchant is the certificate's. A connection opened before a revocation is refused
 * at its next request.
 */
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { Agent, fetch } from 'undici'
import { createKeyAndCsr, generateMerchantCredentials, issueClientCertificate, openAuthority, type CertificateAuthority } from '../../src/processor/ca/index.js'
import { x509 } from '../../src/processor/ca/x509.js'
import { createLogger } from '../../src/platform/observability/logger.js'
import { tempCaDir, waitFor, startCheckoutFixture, type CheckoutFixture, type Credentials, type TestMerchant } from '../../src/devnet/testing/index.js'
import { checkPrometheusText } from '../helpers/prometheus.js'

const DAY_MS = 86_400_000
let f: CheckoutFixture
let merchant: TestMerchant

before(async () => {
  f = await startCheckoutFixture()
  merchant = await f.createMerchant()
})
after(() => f?.stop())

/** One request on a fresh connection: the status, or the error the client saw. */
async function attempt(credentials?: Credentials): Promise<{ status?: number; body?: any; error?: string }> {
  const agent = new Agent({ connect: { ca: f.checkout.caCertificatePem, servername: 'localhost', ...credentials } })
  try {
    const response = await fetch(`${f.checkout.url}/api/v1/charges`, { dispatcher: agent })
    return { status: response.status, body: await response.json() }
  } catch (error) {
    const cause = (error as { cause?: NodeJS.ErrnoException }).cause
    return { error: cause?.code ?? cause?.message ?? String(error) }
  } finally {
    await agent.close()
  }
}

const refusals = () => f.logs.filter((line) => line.includes('"msg":"TLS handshake refused"')).map((line) => JSON.parse(line).reason as string)

async function assertRefused(credentials: Credentials | undefined, reason: string): Promise<void> {
  const before = refusals().length
  const result = await attempt(credentials)
  assert.equal(result.status, undefined, `no HTTP answer reaches a refused client (got ${JSON.stringify(result)})`)
  assert.ok(result.error, 'the client sees the connection fail')
  await waitFor(`the engine to log the refusal (${reason})`, () => refusals().length > before)
  assert.equal(refusals().at(-1), reason)
}

async function signedBy(signer: CertificateAuthority, validity: { notBefore: Date; notAfter: Date }): Promise<Credentials> {
  const { keys, privateKeyPem } = await createKeyAndCsr()
  const publicKey = new x509.PublicKey(await crypto.subtle.exportKey('spki', keys.publicKey))
  const certificate = await issueClientCertificate(signer, { id: merchant.id, name: merchant.name }, publicKey, validity)
  return { key: privateKeyPem, cert: certificate.toString('pem') }
}

function validFor(days: number, startDaysAgo = 0) {
  const notBefore = new Date(Date.now() - startDaysAgo * DAY_MS - 60_000)
  return { notBefore, notAfter: new Date(notBefore.getTime() + days * DAY_MS) }
}

describe('the handshake', () => {
  test('a certificate the CA issued to the merchant gets through', async () => {
    const result = await attempt(merchant.credentials)
    assert.equal(result.status, 200)
    assert.deepEqual(result.body, { charges: [], nextCursor: null })
  })

  test('no client certificate fails in the handshake', async () => {
    await assertRefused(undefined, 'ERR_SSL_PEER_DID_NOT_RETURN_A_CERTIFICATE')
  })

  test("another CA's certificate for the same merchant fails in the handshake", async () => {
    const other = await openAuthority({ chainId: 31337, dataDir: tempCaDir() }, createLogger('silent'))
    await assertRefused(await signedBy(other, validFor(30)), 'UNABLE_TO_VERIFY_LEAF_SIGNATURE')
  })

  test('an expired certificate from the right CA fails in the handshake', async () => {
    await assertRefused(await signedBy(await f.ca.authority(), validFor(1, 10)), 'CERT_HAS_EXPIRED')
  })

  test('a certificate revoked while the engine runs fails in the handshake; the merchant’s other certificate still works', async () => {
    const doomed = await f.createMerchant()
    const sibling = await generateSibling(doomed)
    assert.equal((await attempt(doomed.credentials)).status, 200)
    // A connection opened before the revocation, kept alive.
    const kept = new Agent({ connect: { ca: f.checkout.caCertificatePem, servername: 'localhost', ...doomed.credentials } })
    assert.equal((await fetch(`${f.checkout.url}/api/v1/charges`, { dispatcher: kept })).status, 200)

    const serial = new x509.X509Certificate(doomed.credentials.cert).serialNumber
    await f.ca.client.revokeCertificate(serial, 'keyCompromise')
    await waitFor('the new CRL in the live TLS context', async () => (await attempt(doomed.credentials)).status === undefined)
    await assertRefused(doomed.credentials, 'CERT_REVOKED')
    assert.equal((await attempt(sibling)).status, 200)

    const late = await fetch(`${f.checkout.url}/api/v1/charges`, { dispatcher: kept })
    assert.equal(late.status, 401)
    assert.equal(late.headers.get('content-type'), 'application/problem+json; charset=utf-8')
    assert.match(((await late.json()) as { detail: string }).detail, /was revoked/)
    await kept.close()
  })
})

describe('the merchant behind a valid certificate', () => {
  test('a certificate from this CA for a merchant the database does not know says the merchant is unknown', async () => {
    // As after npm start begins a new embedded database while the CA's files stay: the certificate is
    // valid, the merchant is gone.
    const forgotten = await f.createMerchant()
    await f.db.transaction(async (sql) => {
      await sql.query('DELETE FROM certificates WHERE merchant_id = $1', [forgotten.id])
      await sql.query('DELETE FROM merchants WHERE id = $1', [forgotten.id])
    })
    const result = await attempt(forgotten.credentials)
    assert.equal(result.status, 401)
    assert.match(result.body.detail, new RegExp(`^merchant ${forgotten.id} is unknown to this processor: its database holds no such merchant`))
  })
})

async function generateSibling(owner: TestMerchant): Promise<Credentials> {
  const issued = await generateMerchantCredentials(f.ca.client, owner.id)
  return { key: issued.privateKeyPem, cert: issued.certificate }
}

describe('the merchant is the certificate’s', () => {
  test('a charge belongs to the merchant that created it; another merchant cannot see or cancel it', async () => {
    const other = await f.createMerchant()
    const charge = await f.createCharge(merchant)
    const mine = await f.request(merchant.credentials, 'GET', `/api/v1/charges/${charge.id}`)
    assert.equal(mine.status, 200)
    const { rows } = await f.db.pool.query(`SELECT merchant_id FROM charges WHERE id = $1`, [charge.id])
    assert.equal(rows[0].merchant_id, merchant.id)

    for (const [method, path] of [['GET', `/api/v1/charges/${charge.id}`], ['GET', `/api/v1/charges/${charge.id}/payments`], ['POST', `/api/v1/charges/${charge.id}/cancel`]] as const) {
      const answer = await f.request(other.credentials, method, path)
      assert.equal(answer.status, 404, `${method} ${path}`)
      assert.equal(answer.body.detail, `no charge ${charge.id}`)
    }
    assert.deepEqual((await f.request(other.credentials, 'GET', '/api/v1/charges')).body.charges, [])
    assert.equal((await f.request(merchant.credentials, 'GET', `/api/v1/charges/${charge.id}`)).body.status, 'awaiting-payment')
  })

  test('/health answers any valid certificate', async () => {
    const { status, body } = await f.request(merchant.credentials, 'GET', '/health')
    assert.equal(status, 200)
    assert.equal(body.status, 'ok')
    assert.equal(body.reconciler.role, 'active')
    assert.equal(body.reconciler.explorerConnected, true)
    assert.equal(typeof body.crlNumber, 'number')
  })

  test('/ready and /metrics answer any valid certificate: ready, and Prometheus text with the reconciler and answers by status', async () => {
    const ready = await f.request(merchant.credentials, 'GET', '/ready')
    assert.deepEqual([ready.status, ready.body], [200, { status: 'ready' }])
    const samples = checkPrometheusText(await f.request(merchant.credentials, 'GET', '/metrics'), 'checkout')
    assert.equal(samples.get('checkout_reconciler_active'), 1)
    assert.equal(samples.get('checkout_explorer_connected'), 1)
    assert.ok(samples.get('checkout_crl_number')! >= 1)
    assert.ok(samples.get('checkout_http_requests_total{method="GET",status="200"}')! >= 1)
  })
})
