/**
 * `npm run admin -- reencrypt-webhook-secrets` (a child process on a real PostgreSQL): every stored master
 * secret, live, expired or still in the clear, moves from WEBHOOK_ENCRYPTION_KEY to
 * NEW_WEBHOOK_ENCRYPTION_KEY with its value unchanged; a wrong old key, or one secret the old key cannot
 * open, changes nothing (one transaction) and says so in one line; a second run changes nothing; a worker
 * started with the new key signs with the same secrets, so merchants install nothing.
 */
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { test } from 'node:test'
import { createSecretBox, deriveMerchantSecret, rotateWebhookSecret, startWebhookDelivery } from '../../src/processor/webhooks/index.js'
import { seedWebhookSecret } from '../../src/processor/db/webhook-secrets.js'
import { waitFor, scriptArgs } from '../../src/devnet/testing/index.js'
import { delivered, enqueue, log, newChargeId, newMerchant, TEST_ENCRYPTION_KEY, testOptions, testSealer, verifiesWith, webhookWorld } from './webhooks-fixture.js'

const world = webhookWorld()
const NEW_KEY = 'the-new-webhook-encryption-key-0123456789'
const newSealer = createSecretBox(NEW_KEY)

const storedRows = async () => (await world.db.pool.query<{ id: number; secret: string }>(`SELECT id::int, secret FROM webhook_secrets ORDER BY id`)).rows

function reencrypt(oldKey: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: world.db.url, WEBHOOK_ENCRYPTION_KEY: oldKey, NEW_WEBHOOK_ENCRYPTION_KEY: NEW_KEY }
  return new Promise((resolve) => {
    execFile(process.execPath, [...scriptArgs('scripts/admin.ts'), 'reencrypt-webhook-secrets'], { env }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    )
  })
}

test('re-encryption: all or nothing, a wrong old key refused in one line, the same secrets under the new key, idempotent', async () => {
  // Three masters under the old key (the first expired by a rotation with no overlap, the second live in
  // its overlap, the newest), one left in the clear by an older version.
  const first = testOptions().secretKey!
  await seedWebhookSecret(world.db, first, testSealer)
  await rotateWebhookSecret(world.db, testSealer, { overlapHours: 0 })
  await rotateWebhookSecret(world.db, testSealer, { overlapHours: 2 })
  const clear = testOptions().secretKey!
  await world.db.pool.query(`INSERT INTO webhook_secrets (secret, expires_at) VALUES ($1, now() - interval '1 day')`, [clear])
  const before = await storedRows()
  const values = before.map((row) => testSealer.open(row.secret))
  assert.equal(values.length, 4)

  const wrong = await reencrypt('not-the-webhook-encryption-key-0123456789')
  assert.equal(wrong.code, 1)
  assert.equal(wrong.stderr.trim().split('\n').length, 1, wrong.stderr)
  assert.match(wrong.stderr, /^admin: WEBHOOK_ENCRYPTION_KEY is not the key the secrets are under \(.*key id [0-9a-f]{8}.*\); nothing was changed\n$/)
  assert.deepEqual(await storedRows(), before)

  // One secret under a third key: the old key opens the others, but none of them may change.
  const { rows: [stray] } = await world.db.pool.query<{ id: number }>(`INSERT INTO webhook_secrets (secret) VALUES ($1) RETURNING id::int`, [createSecretBox('a-third-encryption-key-0123456789abcdef').seal(clear)])
  const halfway = await reencrypt(TEST_ENCRYPTION_KEY)
  assert.equal(halfway.code, 1, halfway.stdout)
  assert.match(halfway.stderr, /nothing was changed/)
  assert.deepEqual((await storedRows()).filter((row) => row.id !== stray!.id), before, 'one transaction: the secrets before the stray one are still under the old key')
  await world.db.pool.query(`DELETE FROM webhook_secrets WHERE id = $1`, [stray!.id])

  const done = await reencrypt(TEST_ENCRYPTION_KEY)
  assert.equal(done.code, 0, done.stderr)
  assert.match(done.stdout, /^4 webhook secrets re-encrypted under the new key\.\n/)
  const after = await storedRows()
  assert.deepEqual(after.map((row) => row.id), before.map((row) => row.id))
  assert.deepEqual(after.map((row) => newSealer.open(row.secret)), values, 'the same secrets')
  for (const row of after) {
    assert.ok(newSealer.holds(row.secret), `sealed under the new key: ${row.secret.slice(0, 20)}`)
    assert.throws(() => testSealer.open(row.secret), /encrypted under another WEBHOOK_ENCRYPTION_KEY/)
  }

  const again = await reencrypt(TEST_ENCRYPTION_KEY)
  assert.equal(again.code, 0, again.stderr)
  assert.equal(again.stdout, '0 webhook secrets re-encrypted under the new key, 4 already under it.\n')
  assert.deepEqual(await storedRows(), after, 'a second run changes nothing')

  // A worker on the new key signs with the newest master, as before: merchants install nothing.
  const worker = await startWebhookDelivery(testOptions({ encryptionKey: NEW_KEY }), { db: world.db, log })
  try {
    const receiver = await world.receivers.start()
    const merchant = await newMerchant(world.db, receiver)
    await enqueue(world.db, merchant, newChargeId())
    await waitFor('the delivery', () => delivered(receiver).length === 1)
    assert.ok(verifiesWith(deriveMerchantSecret(values[2]!, merchant.id), delivered(receiver)[0]!), 'signed with the newest master, unchanged')
  } finally {
    await worker.stop()
  }
})
