/**
 * The CA's admin API over real sockets on a real PostgreSQL: merchants and every refused body, issuing
 * from a CSR (the certificate read back with @peculiar/x509), refused CSRs, revocation into the CRL and
 * its NOTIFY, the token, the HTTP edges (401, 404, 405, 413, 415), and the operator's /ready (503 once
 * the database is stopped) and /metrics.
 */
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { createKeyAndCsr, type MerchantView } from '../../src/processor/ca/index.js'
import { x509 } from '../../src/processor/ca/x509.js'
import { certificateChannels } from '../../src/processor/db/certificates.js'
import type { Database } from '../../src/processor/db/open-database.js'
import { waitFor, startDatabaseAndCa, type TestCa } from '../../src/devnet/testing/index.js'
import { checkPrometheusText } from '../helpers/prometheus.js'

let db: Database
let ca: TestCa
const DAY_MS = 86_400_000

let stop: () => Promise<void>

before(async () => ({ db, ca, stop } = await startDatabaseAndCa()))
after(() => stop?.())

const newMerchant = (name = 'Demo Store') => ca.client.createMerchant({ name, webhookUrl: 'http://127.0.0.1:3000/webhooks' })

function assertProblem(response: { status: number; body: any; headers: Headers }, status: number, detail?: RegExp, param?: string) {
  assert.equal(response.status, status, JSON.stringify(response.body))
  assert.match(response.headers.get('content-type') ?? '', /^application\/problem\+json/)
  assert.deepEqual(Object.keys(response.body).filter((k) => k !== 'param').sort(), ['detail', 'status', 'title', 'type'])
  assert.equal(response.body.status, status)
  if (detail) assert.match(response.body.detail, detail)
  if (param) assert.equal(response.body.param, param)
}

describe('merchants', () => {
  test('POST /merchants creates a merchant; GET /merchants/:id reads it back', async () => {
    const created = await ca.request('POST', '/merchants', { body: JSON.stringify({ name: '  Demo Store ', webhookUrl: 'https://shop.example/hooks', acquirerId: '0x' + 'AB'.repeat(16) }) })
    assert.equal(created.status, 201)
    const merchant = created.body as MerchantView
    assert.match(merchant.id, /^m_[0-9a-f]{24}$/)
    assert.equal(created.headers.get('location'), `/merchants/${merchant.id}`)
    assert.deepEqual({ ...merchant, createdAt: undefined }, { id: merchant.id, name: 'Demo Store', webhookUrl: 'https://shop.example/hooks', acquirerId: '0x' + 'ab'.repeat(16), createdAt: undefined })
    assert.ok(Math.abs(Date.parse(merchant.createdAt) - Date.now()) < 60_000)
    const read = await ca.request('GET', `/merchants/${merchant.id}`)
    assert.equal(read.status, 200)
    assert.deepEqual(read.body, { ...merchant, certificates: [] })
    const without = await newMerchant()
    assert.equal(without.acquirerId, null)
  })

  test('every malformed merchant body is a 400 problem naming the field', async () => {
    const cases: [string, RegExp, string?][] = [
      ['{', /not valid JSON/],
      ['[]', /JSON object/],
      ['"x"', /JSON object/],
      [JSON.stringify({ webhookUrl: 'https://a.example' }), /name is required/, 'name'],
      [JSON.stringify({ name: ' ', webhookUrl: 'https://a.example' }), /name must be/, 'name'],
      [JSON.stringify({ name: 'a'.repeat(201), webhookUrl: 'https://a.example' }), /name must be/, 'name'],
      [JSON.stringify({ name: 'a\u0007b', webhookUrl: 'https://a.example' }), /control characters/, 'name'],
      [JSON.stringify({ name: 7, webhookUrl: 'https://a.example' }), /name is required/, 'name'],
      [JSON.stringify({ name: 'a' }), /webhookUrl is required/, 'webhookUrl'],
      [JSON.stringify({ name: 'a', webhookUrl: 'not a url' }), /webhookUrl must be/, 'webhookUrl'],
      [JSON.stringify({ name: 'a', webhookUrl: 'ftp://a.example' }), /webhookUrl must be/, 'webhookUrl'],
      [JSON.stringify({ name: 'a', webhookUrl: 'https://user:pw@a.example' }), /without credentials/, 'webhookUrl'],
      [JSON.stringify({ name: 'a', webhookUrl: 'https://a.example', acquirerId: '0x1234' }), /bytes16/, 'acquirerId'],
      [JSON.stringify({ name: 'a', webhookUrl: 'https://a.example', acquirerId: 5 }), /bytes16/, 'acquirerId'],
      [JSON.stringify({ name: 'a', webhookUrl: 'https://a.example', webhook: 'x' }), /unknown field "webhook"/, 'webhook'],
    ]
    for (const [body, detail, param] of cases) assertProblem(await ca.request('POST', '/merchants', { body }), 400, detail, param)
  })

  test('an unknown merchant is 404', async () => {
    assertProblem(await ca.request('GET', '/merchants/m_000000000000000000000000'), 404, /no merchant/)
    assertProblem(await ca.request('GET', '/merchants/nonsense%zz'), 404)
    assertProblem(await ca.request('POST', '/merchants/m_000000000000000000000000/certificates', { body: JSON.stringify({ csr: (await createKeyAndCsr()).csrPem }) }), 404)
  })
})

describe('issuing', () => {
  test('a CSR gives a client certificate naming the merchant, chained to the CA, valid 90 days', async () => {
    const merchant = await newMerchant('Demo, "Store" ü')
    const { csrPem, keys } = await createKeyAndCsr('whatever the merchant asks for')
    const response = await ca.request('POST', `/merchants/${merchant.id}/certificates`, { body: JSON.stringify({ csr: csrPem }) })
    assert.equal(response.status, 201, JSON.stringify(response.body))
    const issued = response.body
    assert.equal(issued.merchantId, merchant.id)
    assert.equal(issued.caCertificate, ca.caCertificatePem)

    const certificate = new x509.X509Certificate(issued.certificate)
    const caCertificate = new x509.X509Certificate(issued.caCertificate)
    assert.equal(certificate.serialNumber, issued.serial)
    assert.match(issued.serial, /^[0-9a-f]{32}$/)
    assert.deepEqual(certificate.subjectName.getField('CN'), ['Demo, "Store" ü'])
    assert.equal(issued.subject, certificate.subject)
    const san = certificate.getExtension(x509.SubjectAlternativeNameExtension)!
    assert.deepEqual(san.names.toJSON(), [{ type: 'url', value: `urn:merchant:${merchant.id}` }])
    assert.deepEqual([...certificate.getExtension(x509.ExtendedKeyUsageExtension)!.usages], [x509.ExtendedKeyUsage.clientAuth])
    assert.equal(certificate.getExtension(x509.BasicConstraintsExtension)!.ca, false)
    assert.equal(certificate.getExtension(x509.KeyUsagesExtension)!.usages, x509.KeyUsageFlags.digitalSignature)
    assert.deepEqual(Buffer.from(certificate.publicKey.rawData), Buffer.from(await crypto.subtle.exportKey('spki', keys.publicKey)))

    assert.equal(certificate.issuer, caCertificate.subject)
    assert.ok(await certificate.verify({ publicKey: caCertificate, signatureOnly: true }))
    const chain = await new x509.X509ChainBuilder({ certificates: [caCertificate] }).build(certificate)
    assert.deepEqual([...chain].map((c) => c.serialNumber), [certificate.serialNumber, caCertificate.serialNumber])

    assert.ok(certificate.notBefore.getTime() <= Date.now())
    assert.ok(Math.abs(certificate.notAfter.getTime() - (Date.now() + 90 * DAY_MS)) < 120_000)
    assert.equal(issued.notAfter, certificate.notAfter.toISOString())
    assert.deepEqual((await ca.client.getMerchant(merchant.id)).certificates.map((c) => c.serial), [issued.serial])
  })

  test('validityDays 1..825; a name over 64 characters gives CN = the merchant id', async () => {
    const merchant = await newMerchant('N'.repeat(65))
    const { csrPem } = await createKeyAndCsr()
    const long = await ca.client.issueCertificate(merchant.id, csrPem, 825)
    const certificate = new x509.X509Certificate(long.certificate)
    assert.ok(Math.abs(certificate.notAfter.getTime() - (Date.now() + 825 * DAY_MS)) < 120_000)
    assert.deepEqual(certificate.subjectName.getField('CN'), [merchant.id])
    for (const validityDays of [0, 826, 1.5, '30']) {
      assertProblem(await ca.request('POST', `/merchants/${merchant.id}/certificates`, { body: JSON.stringify({ csr: csrPem, validityDays }) }), 400, /validityDays/, 'validityDays')
    }
  })

  test('a CSR whose signature does not verify, or that is not a CSR, or whose key is weak, is refused', async () => {
    const merchant = await newMerchant()
    const { csrPem } = await createKeyAndCsr()
    const der = Buffer.from(x509.PemConverter.decodeFirst(csrPem))
    der[der.length - 1]! ^= 0x01
    const tampered = x509.PemConverter.encode(der, 'CERTIFICATE REQUEST')
    const issue = (csr: unknown) => ca.request('POST', `/merchants/${merchant.id}/certificates`, { body: JSON.stringify({ csr }) })
    assertProblem(await issue(tampered), 400, /signature does not verify/, 'csr')
    assertProblem(await issue('hello'), 400, /PEM block/, 'csr')
    assertProblem(await issue(csrPem.replace(/[A-Za-z]{8}/, 'AAAAAAAA')), 400, /CSR/, 'csr')
    assertProblem(await issue(ca.caCertificatePem), 400, /CERTIFICATE REQUEST/, 'csr')
    assertProblem(await issue(undefined), 400, /csr is required/, 'csr')
    const rsa = await crypto.subtle.generateKey({ name: 'RSASSA-PKCS1-v1_5', modulusLength: 1024, publicExponent: new Uint8Array([1, 0, 1]), hash: 'SHA-256' }, true, ['sign', 'verify'])
    const weak = await x509.Pkcs10CertificateRequestGenerator.create({ name: 'CN=weak', keys: rsa, signingAlgorithm: { name: 'RSASSA-PKCS1-v1_5' } })
    assertProblem(await issue(weak.toString('pem')), 400, /at least 2048 bits/, 'csr')
    assert.deepEqual((await ca.client.getMerchant(merchant.id)).certificates, [])
  })
})

describe('revocation', () => {
  test('a revoked certificate is in the next CRL, signed by the CA, announced on certificate_revoked', async () => {
    const notices: string[] = []
    const listener = await db.listen([certificateChannels.revoked], (_, payload) => notices.push(payload))
    const merchant = await newMerchant()
    const keep = await ca.client.issueCertificate(merchant.id, (await createKeyAndCsr()).csrPem)
    const revoke = await ca.client.issueCertificate(merchant.id, (await createKeyAndCsr()).csrPem)
    const before = new x509.X509Crl(await ca.client.crl())

    const response = await ca.request('POST', `/certificates/${revoke.serial.toUpperCase()}/revoke`, { body: JSON.stringify({ reason: 'keyCompromise' }) })
    assert.equal(response.status, 200, JSON.stringify(response.body))
    assert.equal(response.body.serial, revoke.serial)
    assert.equal(response.body.revocationReason, 'keyCompromise')
    assert.ok(Math.abs(Date.parse(response.body.revokedAt) - Date.now()) < 60_000)

    const crlResponse = await fetch(`${ca.url}/crl`)
    assert.equal(crlResponse.headers.get('content-type'), 'application/x-pem-file')
    const pem = await crlResponse.text()
    assert.match(pem, /^-----BEGIN X509 CRL-----/)
    const crl = new x509.X509Crl(pem)
    const caCertificate = new x509.X509Certificate(ca.caCertificatePem)
    assert.ok(await crl.verify({ publicKey: caCertificate }))
    assert.equal(crl.issuer, caCertificate.subject)
    assert.equal(crl.findRevoked(revoke.serial)?.reason, x509.X509CrlReason.keyCompromise)
    assert.equal(crl.findRevoked(keep.serial), null)
    assert.equal(before.findRevoked(revoke.serial), null)
    assert.ok(crl.thisUpdate.getTime() <= Date.now())
    assert.ok(Math.abs(crl.nextUpdate!.getTime() - (crl.thisUpdate.getTime() + 168 * 3_600_000)) < 1000)

    await waitFor('the revocation notice', () => notices.length > 0)
    assert.deepEqual(JSON.parse(notices[0]!), { serial: revoke.serial, merchantId: merchant.id, crlNumber: response.body.crlNumber })
    await listener.close()
  })

  test('revoking twice keeps the first revocation; unknown serials 404; bad reasons 400; no body = unspecified', async () => {
    const merchant = await newMerchant()
    const issued = await ca.client.issueCertificate(merchant.id, (await createKeyAndCsr()).csrPem)
    const first = await ca.request('POST', `/certificates/${issued.serial}/revoke`, { contentType: '' })
    assert.equal(first.status, 200)
    assert.equal(first.body.revocationReason, 'unspecified')
    const again = await ca.client.revokeCertificate(issued.serial, 'superseded')
    assert.equal(again.revokedAt, first.body.revokedAt)
    assert.equal(again.revocationReason, 'unspecified')
    assert.equal(again.crlNumber, undefined)
    assertProblem(await ca.request('POST', '/certificates/00ff/revoke'), 404, /no certificate/)
    assertProblem(await ca.request('POST', '/certificates/xyz/revoke'), 404, /serials are hex/)
    assertProblem(await ca.request('POST', `/certificates/${issued.serial}/revoke`, { body: JSON.stringify({ reason: 'certificateHold' }) }), 400, /reason must be/, 'reason')
  })
})

describe('the HTTP edge', () => {
  test('every admin route wants the bearer token; /crl and /health do not', async () => {
    for (const token of ['', 'wrong-token']) {
      for (const [method, path] of [['POST', '/merchants'], ['GET', '/merchants/m_000000000000000000000000'], ['POST', '/certificates/01/revoke']] as const) {
        const response = await ca.request(method, path, { token, body: method === 'POST' ? '{}' : undefined })
        assertProblem(response, 401, token ? /wrong/ : /Authorization: Bearer/)
        assert.match(response.headers.get('www-authenticate') ?? '', /^Bearer/)
      }
    }
    assert.equal((await ca.request('GET', '/crl', { token: '' })).status, 200)
    const health = await ca.request('GET', '/health', { token: '' })
    assert.equal(health.status, 200)
    assert.equal(health.body.status, 'ok')
    assert.ok(health.body.crl.number >= 1)
  })

  test('wrong content type 415, over 16 KiB 413, unknown path 404, wrong method 405 with Allow', async () => {
    assertProblem(await ca.request('POST', '/merchants', { body: 'name=x', contentType: 'application/x-www-form-urlencoded' }), 415)
    assertProblem(await ca.request('POST', '/merchants', { body: '{}', contentType: 'text/plain' }), 415)
    const big = JSON.stringify({ name: 'x'.repeat(17 * 1024), webhookUrl: 'https://a.example' })
    assertProblem(await ca.request('POST', '/merchants', { body: big }), 413, /16384 bytes/)
    const chunked = await fetch(`${ca.url}/merchants`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ca.token}`, 'content-type': 'application/json' },
      body: new Blob([big]).stream(),
      duplex: 'half',
    } as RequestInit)
    assert.equal(chunked.status, 413)
    assertProblem(await ca.request('GET', '/nothing'), 404, /no route/)
    const wrongMethod = await ca.request('DELETE', '/merchants')
    assertProblem(wrongMethod, 405)
    assert.equal(wrongMethod.headers.get('allow'), 'POST')
    assert.equal((await ca.request('POST', '/crl', { token: '' })).headers.get('allow'), 'GET')
    assert.equal((await ca.request('GET', '/health')).status, 200, 'the connection survives the refusals')
  })

  test('the token is checked before a body is read: an oversized body without it is 401; HEAD is not a GET here', async () => {
    const big = JSON.stringify({ name: 'x'.repeat(17 * 1024) })
    assertProblem(await ca.request('POST', '/merchants', { token: '', body: big }), 401, /Authorization: Bearer/)
    const head = await fetch(`${ca.url}/health`, { method: 'HEAD' })
    assert.deepEqual([head.status, head.headers.get('allow')], [405, 'GET'])
  })
})

describe('the operator endpoints', () => {
  test('/ready and /metrics need no token: ready with a published CRL, Prometheus text with answers by status', async () => {
    const ready = await ca.request('GET', '/ready', { token: '' })
    assert.deepEqual([ready.status, ready.body], [200, { status: 'ready' }])
    const metrics = await ca.request('GET', '/metrics', { token: '' })
    const samples = checkPrometheusText(metrics, 'ca')
    assert.ok(samples.get('ca_http_requests_total{method="GET",status="200"}')! >= 1)
    assert.ok(samples.get('ca_http_requests_total{method="POST",status="401"}')! >= 1, 'refusals are counted too')
  })

  test('/ready is a 503 problem once the database is stopped; /health says it does not answer', async () => {
    const other = await startDatabaseAndCa()
    try {
      assert.equal((await other.ca.request('GET', '/ready', { token: '' })).status, 200)
      await other.db.close()
      const ready = await other.ca.request('GET', '/ready', { token: '' })
      assertProblem(ready, 503, /^the database does not answer/)
      assertProblem(await other.ca.request('GET', '/health', { token: '' }), 503, /the database does not answer/)
    } finally {
      await other.ca.stop()
    }
  })
})
