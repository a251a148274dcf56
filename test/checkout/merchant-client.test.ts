/**
 * The typed merchant client (issue 23) against the real engine on a real chain and PostgreSQL, over real
 * mutual TLS: every method answers the engine's JSON; a 409 and a 422 problem become `MerchantApiError`
 * with the body, status and `param`; a certificate from another CA, a server the CA does not vouch for,
 * a closed port and a server that never answers become network errors and a timeout; the page iterator
 * visits every charge once; a report arrives in chunks equal to the listing; credential files are read.
 */
import assert from 'node:assert/strict'
import { createServer as createHttpsServer } from 'node:https'
import { createServer, type Server, type Socket } from 'node:net'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, describe, test } from 'node:test'
import { createKeyAndCsr, credentialFiles, issueClientCertificate, issueServerCertificate, openAuthority } from '../../src/processor/ca/index.js'
import { x509 } from '../../src/processor/ca/x509.js'
import { MerchantApiError, MerchantClient, MerchantNetworkError, MerchantTimeoutError, verifyWebhook, type ChargeJson } from '../../src/processor/merchant-client/index.js'
import { generateWebhookSecret } from '../../src/processor/db/webhook-secrets.js'
import { deriveMerchantSecret } from '../../src/processor/webhooks/index.js'
import { webhookHeaders } from '../../src/processor/webhooks/sign-webhook.js'
import { createLogger } from '../../src/platform/observability/logger.js'
import { tempCaDir, mine, nextOrderId, startCheckoutFixture, type CheckoutFixture, type TestMerchant, tempDir } from '../../src/devnet/testing/index.js'

let f: CheckoutFixture
let merchant: TestMerchant
let client: MerchantClient
const clients: MerchantClient[] = []

const connect = (credentials: { key: string; cert: string }, more: { ca?: string; timeoutMs?: number; baseUrl?: string } = {}) => {
  const made = new MerchantClient({ baseUrl: more.baseUrl ?? f.checkout.url, credentials: { ...credentials, ca: more.ca ?? f.checkout.caCertificatePem }, servername: 'localhost', timeoutMs: more.timeoutMs })
  clients.push(made)
  return made
}

before(async () => {
  f = await startCheckoutFixture({ CONFIRMATION_BLOCKS: '2' })
  merchant = await f.createMerchant()
  client = connect(merchant.credentials)
})
after(async () => {
  for (const made of clients) await made.close()
  await f?.stop()
})

const chargeRequest = (amount = '10000000') => {
  const token = f.chain.deployment.tokens[0]!
  return { amount, token: token.address, beneficiary: f.chain.deployment.recipients[0]!, currency: token.symbol, orderId: nextOrderId() }
}

async function rejection(promise: Promise<unknown>): Promise<Error> {
  return promise.then(
    (value) => assert.fail(`expected a failure, got ${JSON.stringify(value)}`),
    (error: Error) => error,
  )
}

async function text(chunks: AsyncIterable<Uint8Array>): Promise<{ text: string; chunks: number }> {
  const parts: Buffer[] = []
  for await (const chunk of chunks) parts.push(Buffer.from(chunk))
  return { text: Buffer.concat(parts).toString('utf8'), chunks: parts.length }
}

describe('charges', () => {
  test('create (idempotent), get, list, cancel answer the engine’s JSON', async () => {
    const request = chargeRequest()
    const created = await client.createCharge(request, { idempotencyKey: `key-${request.orderId}` })
    assert.equal(created.status, 'awaiting-payment')
    assert.equal(created.orderId, request.orderId)
    assert.ok(created.ephemeralToken)
    const replayed = await client.createCharge(request, { idempotencyKey: `key-${request.orderId}` })
    assert.equal(replayed.id, created.id)
    assert.notEqual(replayed.ephemeralToken, created.ephemeralToken)

    const read = await client.getCharge(created.id)
    assert.deepEqual({ ...read, ephemeralToken: created.ephemeralToken }, created)
    assert.equal(read.ephemeralToken, null)
    const listed = await client.listCharges({ orderId: request.orderId })
    assert.deepEqual(listed.charges.map((c) => c.id), [created.id])
    assert.equal(listed.nextCursor, null)
    assert.deepEqual(await client.listChargePayments(created.id), { payments: [] })

    const canceled = await client.cancelCharge(created.id)
    assert.equal(canceled.status, 'canceled')
    assert.equal((await client.getCharge(created.id)).status, 'canceled')
  })

  test('a duplicate order id is a 409 MerchantApiError naming orderId; another body under the same key a 422 naming Idempotency-Key', async () => {
    const request = chargeRequest()
    await client.createCharge(request, { idempotencyKey: `dup-${request.orderId}` })
    const duplicate = await rejection(client.createCharge(request))
    assert.ok(duplicate instanceof MerchantApiError, String(duplicate))
    assert.deepEqual([duplicate.status, duplicate.param, duplicate.problem.status, duplicate.retryable], [409, 'orderId', 409, false])
    assert.match(duplicate.problem.detail, /already has charge/)

    const conflict = await rejection(client.createCharge({ ...request, amount: '20000000' }, { idempotencyKey: `dup-${request.orderId}` }))
    assert.ok(conflict instanceof MerchantApiError)
    assert.deepEqual([conflict.status, conflict.param], [422, 'Idempotency-Key'])
    assert.match(conflict.message, /^422 /)
  })

  test('bad input and an unknown charge are problems too: 400 naming limit or id, 404', async () => {
    const badLimit = await rejection(client.listCharges({ limit: 101 }))
    assert.ok(badLimit instanceof MerchantApiError)
    assert.deepEqual([badLimit.status, badLimit.param], [400, 'limit'])
    const badId = await rejection(client.getCharge('ch_../../refunds'))
    assert.ok(badId instanceof MerchantApiError)
    assert.deepEqual([badId.status, badId.param], [400, 'id'])
    const unknown = await rejection(client.getCharge(`ch_${'0'.repeat(24)}`))
    assert.ok(unknown instanceof MerchantApiError)
    assert.equal(unknown.status, 404)
  })

  test('allCharges visits every charge of the filter once, across pages, newest first', async () => {
    const beneficiary = f.chain.deployment.recipients[1]!
    const made: string[] = []
    for (let i = 0; i < 7; i++) made.push((await client.createCharge({ ...chargeRequest(), beneficiary })).id)
    const visited: string[] = []
    for await (const charge of client.allCharges({ beneficiary, limit: 3 })) visited.push(charge.id)
    assert.equal(new Set(visited).size, visited.length, 'no charge twice')
    assert.deepEqual(visited, [...made].reverse())
    const firstPage = await client.listCharges({ beneficiary, limit: 3 })
    assert.equal(firstPage.charges.length, 3)
    assert.ok(firstPage.nextCursor)
  })
})

describe('refunds', () => {
  let settled: ChargeJson

  before(async () => {
    const charge = await client.createCharge(chargeRequest('10000000'))
    await f.pay(charge)
    await f.waitForStatus(merchant, charge.id, 'confirming')
    await mine(f.chain, 2)
    settled = await f.waitForStatus(merchant, charge.id, 'settled')
  })

  test('create (idempotent), list, get, cancel', async () => {
    const refund = await client.createRefund(settled.id, { amount: '4000000', reason: 'one broken' }, { idempotencyKey: `refund-${settled.id}` })
    assert.deepEqual([refund.status, refund.amount, refund.chargeId], ['awaiting-signature', '4000000', settled.id])
    assert.ok(refund.ephemeralToken)
    assert.equal((await client.createRefund(settled.id, { amount: '4000000', reason: 'one broken' }, { idempotencyKey: `refund-${settled.id}` })).id, refund.id)
    assert.deepEqual((await client.listRefunds(settled.id)).refunds.map((r) => r.id), [refund.id])
    assert.equal((await client.getRefund(refund.id)).id, refund.id)
    assert.equal((await client.cancelRefund(refund.id)).status, 'canceled')
    assert.equal((await client.getRefund(refund.id)).status, 'canceled')
  })

  test('a refund above what the charge paid is a 409 MerchantApiError naming amount, with the problem’s own fields', async () => {
    const over = await rejection(client.createRefund(settled.id, { amount: '10000001' }))
    assert.ok(over instanceof MerchantApiError)
    assert.deepEqual([over.status, over.param, over.problem.refundable], [409, 'amount', '10000000'])
  })

  test('the refunds report downloads as CSV with the refund in it', async () => {
    const report = await text(client.downloadRefundsReport({ chargeId: settled.id }))
    const [header, ...rows] = report.text.trimEnd().split('\r\n')
    assert.match(header!, /^id,/)
    assert.equal(rows.length, 1)
  })
})

describe('payment links', () => {
  test('create, get, list (and allPaymentLinks), deactivate', async () => {
    const { orderId: _, currency: __, ...terms } = chargeRequest('2500000')
    const link = await client.createPaymentLink({ ...terms, description: 'Mug', maxUses: 3 })
    assert.deepEqual([link.status, link.maxUses, link.uses, link.description], ['active', 3, 0, 'Mug'])
    assert.match(link.url, new RegExp(`/l/${link.id}$`))
    assert.deepEqual(await client.getPaymentLink(link.id), link)
    assert.ok((await client.listPaymentLinks({ limit: 100 })).paymentLinks.some((l) => l.id === link.id))
    const all: string[] = []
    for await (const each of client.allPaymentLinks({ limit: 1 })) all.push(each.id)
    assert.ok(all.includes(link.id))
    assert.equal(new Set(all).size, all.length)
    const deactivated = await client.deactivatePaymentLink(link.id)
    assert.equal(deactivated.status, 'deactivated')
    assert.ok(deactivated.deactivatedAt)
  })
})

describe('reports', () => {
  test('downloadChargesReport streams the same bytes as the raw endpoint, one row per charge of allCharges, in its order', async () => {
    const beneficiary = f.chain.deployment.recipients[2]!
    for (let i = 0; i < 5; i++) await client.createCharge({ ...chargeRequest(), beneficiary })
    const report = await text(client.downloadChargesReport({ beneficiary }))
    const raw = await f.request(merchant.credentials, 'GET', `/api/v1/reports/charges.csv?beneficiary=${beneficiary}`)
    assert.equal(report.text, raw.body)
    assert.ok(report.chunks >= 1)
    const listed: string[] = []
    for await (const charge of client.allCharges({ beneficiary, limit: 2 })) listed.push(charge.id)
    const [, ...rows] = report.text.trimEnd().split('\r\n')
    assert.deepEqual(rows.map((row) => row.split(',')[0]), listed)
    assert.equal(listed.length, 5)
  })

  test('a bad filter is a 400 MerchantApiError at the first chunk', async () => {
    const bad = await rejection(text(client.downloadChargesReport({ from: '2026-02-30' })))
    assert.ok(bad instanceof MerchantApiError)
    assert.deepEqual([bad.status, bad.param], [400, 'from'])
  })
})

describe('connections', () => {
  test('a certificate from another CA is refused in the handshake: a MerchantNetworkError with the cause', async () => {
    const other = await openAuthority({ chainId: 31337, dataDir: tempCaDir() }, createLogger('silent'))
    const { keys, privateKeyPem } = await createKeyAndCsr()
    const publicKey = new x509.PublicKey(await crypto.subtle.exportKey('spki', keys.publicKey))
    const notBefore = new Date(Date.now() - 60_000)
    const certificate = await issueClientCertificate(other, { id: merchant.id, name: merchant.name }, publicKey, { notBefore, notAfter: new Date(notBefore.getTime() + 86_400_000) })
    const error = await rejection(connect({ key: privateKeyPem, cert: certificate.toString('pem') }).listCharges())
    assert.ok(error instanceof MerchantNetworkError && !(error instanceof MerchantTimeoutError), String(error))
    assert.ok(error.cause, 'the cause is kept')
    assert.equal(error.retryable, true)
  })

  test('an engine whose certificate the given CA did not sign is refused by the client', async () => {
    const other = await openAuthority({ chainId: 31337, dataDir: tempCaDir() }, createLogger('silent'))
    const error = await rejection(connect(merchant.credentials, { ca: other.certificate.toString('pem') }).listCharges())
    assert.ok(error instanceof MerchantNetworkError)
    assert.match(error.message, /GET https:\/\/.*\/api\/v1\/charges failed: /)
  })

  test('a closed port is a MerchantNetworkError; a server that never answers a MerchantTimeoutError after timeoutMs', async () => {
    // Accepts the connection and never says a word, not even the TLS handshake.
    const sockets = new Set<Socket>()
    const silent: Server = createServer((socket) => sockets.add(socket))
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve))
    const port = (silent.address() as { port: number }).port
    try {
      const timedOut = await rejection(connect(merchant.credentials, { baseUrl: `https://127.0.0.1:${port}`, timeoutMs: 300 }).getCharge(`ch_${'1'.repeat(24)}`))
      assert.ok(timedOut instanceof MerchantTimeoutError, String(timedOut))
      assert.equal(timedOut.timeoutMs, 300)
    } finally {
      for (const socket of sockets) socket.destroy()
      await new Promise((resolve) => silent.close(resolve))
    }
    const refused = await rejection(connect(merchant.credentials, { baseUrl: `https://127.0.0.1:${port}` }).getCharge(`ch_${'1'.repeat(24)}`))
    assert.ok(refused instanceof MerchantNetworkError && !(refused instanceof MerchantTimeoutError), String(refused))
    assert.match(refused.message, /ECONNREFUSED/)
  })

  test('a download whose body stalls after its first chunk ends in a MerchantTimeoutError, not a hang', async () => {
    // An HTTPS server with a certificate from the engine's CA that sends the header line and then nothing.
    const { keys, privateKeyPem } = await createKeyAndCsr()
    const publicKey = new x509.PublicKey(await crypto.subtle.exportKey('spki', keys.publicKey))
    const notBefore = new Date(Date.now() - 60_000)
    const cert = await issueServerCertificate(await f.ca.authority(), ['localhost'], publicKey, { notBefore, notAfter: new Date(notBefore.getTime() + 86_400_000) })
    const stalling = createHttpsServer({ key: privateKeyPem, cert: cert.toString('pem') }, (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/csv' })
      res.write('id,status\r\n')
    })
    await new Promise<void>((resolve) => stalling.listen(0, '127.0.0.1', resolve))
    try {
      const chunks: string[] = []
      const download = connect(merchant.credentials, { baseUrl: `https://127.0.0.1:${(stalling.address() as { port: number }).port}`, timeoutMs: 300 }).downloadChargesReport()
      const error = await rejection((async () => {
        for await (const chunk of download) chunks.push(Buffer.from(chunk).toString())
      })())
      assert.deepEqual(chunks, ['id,status\r\n'])
      assert.ok(error instanceof MerchantTimeoutError, String(error))
    } finally {
      stalling.closeAllConnections()
      await new Promise((resolve) => stalling.close(resolve))
    }
  })

  test('fromCredentialFiles reads the files issue-certificate --out-dir writes', async () => {
    const dir = tempDir('merchant-client-')
    writeFileSync(join(dir, credentialFiles.key), merchant.credentials.key)
    writeFileSync(join(dir, credentialFiles.certificate), merchant.credentials.cert)
    writeFileSync(join(dir, credentialFiles.caCertificate), f.checkout.caCertificatePem)
    const fromFiles = MerchantClient.fromCredentialFiles(f.checkout.url, dir, { servername: 'localhost' })
    clients.push(fromFiles)
    const charge = await fromFiles.createCharge(chargeRequest())
    assert.equal((await client.getCharge(charge.id)).id, charge.id)
    const missing = await rejection(MerchantClient.fromCredentialFiles(f.checkout.url, join(dir, 'nowhere')).listCharges())
    assert.match(missing.message, /cannot read .*nowhere\/[a-z.]+\.pem \(ENOENT\)/)
  })
})

test('verifyWebhook, imported with the client, verifies what the engine signs and refuses a changed body', async () => {
  const master = generateWebhookSecret()
  const body = JSON.stringify({ type: 'charge.settled', timestamp: new Date().toISOString(), data: { id: 'ch_1', orderId: 'o-1' } })
  const headers = webhookHeaders({ id: 'msg_1', merchantId: merchant.id, body, secrets: [master] })
  const secret = deriveMerchantSecret(master, merchant.id)
  assert.deepEqual(verifyWebhook([secret], headers, body), JSON.parse(body))
  assert.throws(() => verifyWebhook([secret], headers, body.replace('o-1', 'o-2')), /signature/i)
})
