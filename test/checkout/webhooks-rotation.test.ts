/**
 * Secret rotation without downtime, with two delivery workers (replicas) on one real PostgreSQL and
 * events flowing the whole time: during the overlap a receiver holding only the old secret and one
 * holding only the new secret both verify every delivery; after it only the new one signs; both
 * replicas sign with the new secret from the moment the rotation commits; no event is ever sent by two
 * workers at once. Then `npm run admin -- rotate-webhook-secret` and `webhook-secret` in a child process.
 */
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { setTimeout as sleep } from 'node:timers/promises'
import { after, before, test } from 'node:test'
import { deriveMerchantSecret, rotateWebhookSecret, startWebhookDelivery, type WebhookDelivery } from '../../src/processor/webhooks/index.js'
import type { Merchant } from '../../src/processor/db/merchants.js'
import { openDatabase, type Database } from '../../src/processor/db/open-database.js'
import { liveWebhookSecrets } from '../../src/processor/db/webhook-secrets.js'
import { testDatabase } from '../../src/devnet/test-database/index.js'
import { waitFor, scriptArgs } from '../../src/devnet/testing/index.js'
import { capturingLogger, delivered, enqueue, eventRow, log, newChargeId, newMerchant, startReceiver, TEST_ENCRYPTION_KEY, testOptions, testSealer, verifiesWith, type Receiver } from './webhooks-fixture.js'

let db: Database
let receiver: Receiver
let merchant: Merchant
const workers: WebhookDelivery[] = []
const options = testOptions()

before(async () => {
  db = await openDatabase(await testDatabase(), log)
  let calls = 0
  // Slow answers widen the window for a double send; every fifth request fails so retries cross replicas.
  receiver = await startReceiver(async () => {
    await sleep(15)
    return ++calls % 5 === 0 ? 500 : 200
  })
  merchant = await newMerchant(db, receiver)
})
after(async () => {
  await Promise.all(workers.map((w) => w.stop()))
  await receiver?.close()
  await db?.close()
})

/** Enqueues events over a few charges until stopped; `phase()` labels each id when it is enqueued. */
function produce(phase: () => string) {
  const phases = new Map<string, string>()
  const charges = Array.from({ length: 4 }, newChargeId)
  let running = true
  const done = (async () => {
    for (let n = 0; running; n++) {
      const label = phase()
      phases.set(await enqueue(db, merchant, charges[n % charges.length]!), label)
      await sleep(10)
    }
  })()
  return {
    phases,
    async stop() {
      running = false
      await done
    },
  }
}

test('rotation while deliveries flow through two replicas: both secrets verify during the overlap, only the new one after', async () => {
  const [one, two] = [capturingLogger(), capturingLogger()]
  workers.push(await startWebhookDelivery(options, { db, log: one.log }), await startWebhookDelivery(options, { db, log: two.log }))
  const oldSecret = deriveMerchantSecret(options.secretKey!, merchant.id)

  let phase = 'before'
  const producer = produce(() => phase)
  await waitFor('deliveries before the rotation', () => delivered(receiver).length >= 10)
  const overlapMs = 6_000
  const rotation = await rotateWebhookSecret(db, testSealer, { overlapHours: overlapMs / 3_600_000 })
  phase = 'overlap'
  const newSecret = deriveMerchantSecret(rotation.secret.secret, merchant.id)
  const expiresAt = rotation.replaced[0]!.expiresAt!
  assert.equal(rotation.replaced.length, 1)
  await waitFor('the overlap to end', () => Date.now() > expiresAt.getTime() + 1_000, overlapMs + 30_000)
  phase = 'after'
  await waitFor('deliveries after the overlap', () => delivered(receiver).filter((r) => producer.phases.get(r.id) === 'after').length >= 10)
  await producer.stop()
  await waitFor('every event delivered', async () => {
    const { rows } = await db.pool.query(`SELECT 1 FROM webhook_events WHERE status <> 'delivered' LIMIT 1`)
    return rows.length === 0
  })

  const label = (id: string) => producer.phases.get(id)!
  const expirySecond = Math.floor(expiresAt.getTime() / 1000)
  for (const request of receiver.requests) {
    const holdsOld = verifiesWith(oldSecret, request)
    const holdsNew = verifiesWith(newSecret, request)
    assert.ok(holdsOld || holdsNew, `${request.id} (${label(request.id)}) verifies with neither secret`)
    // Signed inside the overlap (its timestamp says when): one signature per live secret.
    if (label(request.id) !== 'before' && request.timestamp < expirySecond - 1) {
      assert.equal(request.signatures.length, 2, `${request.id} signed during the overlap`)
      assert.ok(holdsOld && holdsNew, `${request.id} signed during the overlap must verify with both`)
    }
    if (label(request.id) === 'before' && request.timestamp < expirySecond - 1) assert.ok(holdsOld)
    if (label(request.id) !== 'before') assert.ok(holdsNew, `${request.id}, enqueued after the rotation, must carry the new signature`)
    if (label(request.id) === 'after') {
      assert.equal(request.signatures.length, 1)
      assert.ok(!holdsOld, `${request.id}: the expired secret signed after the overlap`)
    }
  }
  const overlapDeliveries = receiver.requests.filter((r) => label(r.id) === 'overlap' && r.timestamp < expirySecond - 1)
  assert.ok(overlapDeliveries.length >= 5, `only ${overlapDeliveries.length} deliveries inside the overlap`)

  const postRotation = [...producer.phases].filter(([, p]) => p !== 'before').map(([id]) => id)
  for (const replica of [one, two]) assert.ok(postRotation.some((id) => replica.delivered.has(id)), 'a replica delivered nothing after the rotation')
  assert.equal(receiver.maxConcurrentPerId(), 1, 'an event was sent by two workers at once')
  const twoHundreds = new Map<string, number>()
  for (const r of delivered(receiver)) twoHundreds.set(r.id, (twoHundreds.get(r.id) ?? 0) + 1)
  assert.equal(twoHundreds.size, producer.phases.size)
  assert.ok([...twoHundreds.values()].every((n) => n === 1), 'an event was delivered twice')
})

function admin(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: db.url, WEBHOOK_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY }
  return new Promise((resolve) => {
    execFile(process.execPath, [...scriptArgs('scripts/admin.ts'), ...args], { env }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    )
  })
}

test('npm run admin -- rotate-webhook-secret prints each merchant its new secret; the running workers sign with it at once', async () => {
  if (workers.length === 0) workers.push(await startWebhookDelivery(options, { db, log }))
  const before = (await liveWebhookSecrets(db.pool, testSealer)).secrets
  const rotated = await admin(['rotate-webhook-secret', '--overlap-hours', '2'])
  assert.equal(rotated.code, 0, rotated.stderr)
  const [newest] = (await liveWebhookSecrets(db.pool, testSealer)).secrets
  const line = rotated.stdout.split('\n').find((l) => l.startsWith(merchant.id))
  assert.ok(line, rotated.stdout)
  const printed = line.split(/\s+/)[1]!
  assert.equal(printed, deriveMerchantSecret(newest!.secret, merchant.id))
  assert.ok(!rotated.stdout.includes(newest!.secret), 'the master secret must not be printed')

  const id = await enqueue(db, merchant, newChargeId())
  await waitFor('the delivery', async () => (await eventRow(db, id)).status === 'delivered')
  const request = delivered(receiver).find((r) => r.id === id)!
  assert.ok(verifiesWith(printed, request))
  assert.ok(verifiesWith(deriveMerchantSecret(before[0]!.secret, merchant.id), request), 'the previous secret signs during the 2 h overlap')

  const shown = await admin(['webhook-secret', merchant.id])
  assert.equal(shown.code, 0, shown.stderr)
  const [current, previous] = shown.stdout.trim().split('\n').map((l) => l.split(/\s+/))
  assert.deepEqual(current, [printed, 'current'])
  assert.equal(previous![0], deriveMerchantSecret(before[0]!.secret, merchant.id))
  assert.ok(Math.abs(Date.parse(previous![2]!) - (Date.now() + 2 * 3_600_000)) < 300_000)

  const refused = await admin(['rotate-webhook-secret', '--overlap-hours', 'soon'])
  assert.equal(refused.code, 1)
  assert.match(refused.stderr, /^admin: --overlap-hours must be a number/)
  const unknown = await admin(['webhook-secret', 'm_000000000000000000000000'])
  assert.match(unknown.stderr, /^admin: no merchant m_000000000000000000000000/)
})
