/**
 * `setUpDemoMerchant` against the real CA on an embedded PostgreSQL: the merchant, its key and
 * certificate and its webhook secret written once and kept across restarts; a new certificate when
 * the old one was revoked, a new merchant when the webhook URL changed or the database was emptied
 * (as `npm start` does), and the secret file following a rotation.
 */
import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { createSecretBox, merchantWebhookSecrets, rotateWebhookSecret } from '../../src/processor/webhooks/index.js'
import { readClientCredentials, readMerchantRecord, readWebhookSecrets } from '../../src/devnet/demo-store/merchant-files.js'
import { setUpDemoMerchant } from '../../src/devnet/demo-store/index.js'
import { generateWebhookSecret, seedWebhookSecret } from '../../src/processor/db/webhook-secrets.js'
import { x509 } from '../../src/processor/ca/x509.js'
import { startDatabaseAndCa, type TestCa } from '../../src/devnet/testing/index.js'
import type { Database } from '../../src/processor/db/open-database.js'

let db: Database
let ca: TestCa
let stop: () => Promise<void>
const dirs: string[] = []
const webhookUrl = 'http://127.0.0.1:3000/webhooks'
const sealer = createSecretBox('demo-merchant-test-encryption-key-0123456789')

const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'demo-merchant-test-'))
  dirs.push(dir)
  return dir
}

before(async () => {
  ;({ db, ca, stop } = await startDatabaseAndCa())
})

after(async () => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
  await stop?.()
})

test('refuses while no webhook secret is seeded, naming what to start first', async () => {
  await assert.rejects(setUpDemoMerchant({ db, sealer, ca: ca.client, dir: tempDir(), webhookUrl }), /no webhook secret in the database yet: start the checkout webhook delivery/)
})

test('writes the merchant, key (0600), certificate, CA certificate and secret once; a second run keeps them all', async () => {
  await seedWebhookSecret(db, generateWebhookSecret(), sealer)
  const dir = tempDir()
  const first = await setUpDemoMerchant({ db, sealer, ca: ca.client, dir, webhookUrl })
  assert.deepEqual({ created: first.created, certificateIssued: first.certificateIssued }, { created: true, certificateIssued: true })
  const merchant = await ca.client.getMerchant(first.merchantId)
  assert.deepEqual([merchant.name, merchant.webhookUrl], ['Demo Store', webhookUrl])
  const credentials = await readClientCredentials(dir)
  const certificate = new x509.X509Certificate(credentials.cert)
  assert.equal(certificate.getExtension(x509.SubjectAlternativeNameExtension)!.names.items[0]!.value, `urn:merchant:${first.merchantId}`)
  assert.equal(statSync(join(dir, 'client.key.pem')).mode & 0o777, 0o600)
  assert.equal(statSync(join(dir, 'webhook-secret')).mode & 0o777, 0o600)
  assert.deepEqual(await readWebhookSecrets(dir), (await merchantWebhookSecrets(db.pool, sealer, first.merchantId)).map((s) => s.secret))

  const second = await setUpDemoMerchant({ db, sealer, ca: ca.client, dir, webhookUrl })
  assert.deepEqual(second, { merchantId: first.merchantId, created: false, certificateIssued: false })
  assert.equal((await readClientCredentials(dir)).cert, credentials.cert)
  assert.equal((await ca.client.getMerchant(first.merchantId)).certificates.length, 1)
})

test('a revoked certificate is replaced for the same merchant; a new webhook URL or an emptied database makes a new merchant', async () => {
  const dir = tempDir()
  const { merchantId } = await setUpDemoMerchant({ db, sealer, ca: ca.client, dir, webhookUrl })
  await ca.client.revokeCertificate((await readMerchantRecord(dir))!.certificateSerial, 'superseded')
  assert.deepEqual(await setUpDemoMerchant({ db, sealer, ca: ca.client, dir, webhookUrl }), { merchantId, created: false, certificateIssued: true })

  const moved = await setUpDemoMerchant({ db, sealer, ca: ca.client, dir, webhookUrl: 'http://127.0.0.1:3001/webhooks' })
  assert.notEqual(moved.merchantId, merchantId)
  assert.ok(moved.created && moved.certificateIssued)

  await db.pool.query('DELETE FROM certificates WHERE merchant_id = $1', [moved.merchantId])
  await db.pool.query('DELETE FROM merchants WHERE id = $1', [moved.merchantId])
  const recreated = await setUpDemoMerchant({ db, sealer, ca: ca.client, dir, webhookUrl: 'http://127.0.0.1:3001/webhooks' })
  assert.notEqual(recreated.merchantId, moved.merchantId)
  assert.equal((await readMerchantRecord(dir))!.merchantId, recreated.merchantId)
})

test('after a rotation the secret file holds the new and the old secret, newest first', async () => {
  const dir = tempDir()
  const { merchantId } = await setUpDemoMerchant({ db, sealer, ca: ca.client, dir, webhookUrl })
  const before = await readWebhookSecrets(dir)
  await rotateWebhookSecret(db, sealer)
  await setUpDemoMerchant({ db, sealer, ca: ca.client, dir, webhookUrl })
  const secrets = await readWebhookSecrets(dir)
  assert.equal(secrets.length, 2)
  assert.equal(secrets[1], before[0])
  assert.deepEqual(secrets, (await merchantWebhookSecrets(db.pool, sealer, merchantId)).map((s) => s.secret))
  assert.match(readFileSync(join(dir, 'merchant.json'), 'utf8'), new RegExp(merchantId))
})
