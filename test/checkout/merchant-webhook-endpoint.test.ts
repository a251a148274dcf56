/**
 * Issue 38 item 7, a merchant's webhook endpoint over the merchant API (real anvil, embedded PostgreSQL,
 * explorer, CA, the checkout engine on mutual TLS and a real delivery worker posting to real receivers):
 * the URL is read and changed (deliveries follow it; a bad URL is a problem naming `webhookUrl`); a
 * rotation answers the new secret once, and during the overlap the real deliveries carry a signature the
 * old secret verifies and one the new secret verifies; no later read shows the secret; the number of live
 * secrets is bounded, and overlap 0 ends the old ones at once. Another merchant can neither see nor change
 * any of it, and its own rotation leaves the first merchant's signatures alone.
 */
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { deriveMerchantSecret, merchantWebhookSecrets, rotateWebhookSecret, startWebhookDelivery, type WebhookDelivery } from '../../src/processor/webhooks/index.js'
import { MAX_WEBHOOK_URL_LENGTH, parseWebhookUrl } from '../../src/processor/webhooks/index.js'
import { MerchantClient } from '../../src/processor/merchant-client/index.js'
import { waitFor, startCheckoutFixture, type CheckoutFixture, type TestMerchant } from '../../src/devnet/testing/index.js'
import { delivered, log, startReceiver, TEST_ENCRYPTION_KEY, testOptions, testSealer, verifiesWith, type ReceivedWebhook, type Receiver } from './webhooks-fixture.js'

let f: CheckoutFixture
let worker: WebhookDelivery
let merchant: TestMerchant
let other: TestMerchant
let receiver: Receiver
let otherReceiver: Receiver
/** What each merchant verified with before any rotation (what `npm run admin -- webhook-secret` prints). */
let oldSecret: string
let otherOldSecret: string
let newSecret: string
/** The other merchant's after its rotation with overlap 0. */
let otherNewSecret: string

before(async () => {
  f = await startCheckoutFixture({ CONFIRMATION_BLOCKS: '0', WEBHOOK_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY })
  worker = await startWebhookDelivery(testOptions(), { db: f.db, log })
  ;[merchant, other] = [await f.createMerchant(), await f.createMerchant()]
  ;[receiver, otherReceiver] = [await startReceiver(), await startReceiver()]
  ;[oldSecret, otherOldSecret] = (await Promise.all([merchant, other].map(async (m) => (await merchantWebhookSecrets(f.db.pool, testSealer, m.id))[0]!.secret))) as [string, string]
})
after(async () => {
  await worker?.stop()
  await Promise.all([receiver?.close(), otherReceiver?.close()])
  await f?.stop()
})

const endpoint = (who: TestMerchant, method = 'GET', body?: unknown) => f.request(who.credentials, method, '/api/v1/webhook-endpoint', body === undefined ? {} : { body })
const rotate = (who: TestMerchant, body?: unknown) => f.request(who.credentials, 'POST', '/api/v1/webhook-endpoint/rotate-secret', body === undefined ? {} : { body })

/** A charge.canceled event of a fresh charge of `who`, as its receiver got it (2xx). */
async function nextDelivery(who: TestMerchant, at: Receiver): Promise<ReceivedWebhook> {
  const charge = await f.createCharge(who)
  assert.equal((await f.request(who.credentials, 'POST', `/api/v1/charges/${charge.id}/cancel`)).status, 200)
  return waitFor(`the webhook of ${charge.id}`, () => delivered(at).find((r) => r.chargeId === charge.id))
}

const assertProblem = (answer: { status: number; headers: Headers; body: any }, status: number, param: string | undefined, context: string) => {
  assert.equal(answer.status, status, `${context}: ${JSON.stringify(answer.body)}`)
  assert.equal(answer.headers.get('content-type'), 'application/problem+json; charset=utf-8', context)
  assert.equal(answer.body.param, param, context)
}

describe('the webhook URL', () => {
  test('is read and changed over the API, and deliveries follow it', async () => {
    const read = await endpoint(merchant)
    assert.equal(read.status, 200, JSON.stringify(read.body))
    assert.equal(read.body.webhookUrl, merchant.webhookUrl)
    assert.equal(read.body.secrets.length, 1)
    assert.equal(read.body.secrets[0].expiresAt, null)

    for (const [who, at] of [[merchant, receiver], [other, otherReceiver]] as const) {
      const changed = await endpoint(who, 'PUT', { webhookUrl: at.url })
      assert.equal(changed.status, 200, JSON.stringify(changed.body))
      assert.equal(changed.body.webhookUrl, at.url)
      assert.equal((await endpoint(who)).body.webhookUrl, at.url)
    }
    const received = await nextDelivery(merchant, receiver)
    assert.ok(verifiesWith(oldSecret, received))
    assert.ok(!otherReceiver.requests.some((r) => r.id === received.id), 'not to the other merchant’s URL')
  })

  test('a bad URL or body is refused with a problem naming the field, and nothing changes', async () => {
    const before = (await endpoint(merchant)).body.webhookUrl
    const cases: [unknown, string | undefined][] = [
      [{ webhookUrl: 'ftp://shop.example/hooks' }, 'webhookUrl'],
      [{ webhookUrl: 'https://user:pass@shop.example/hooks' }, 'webhookUrl'],
      [{ webhookUrl: 'shop.example/hooks' }, 'webhookUrl'],
      [{ webhookUrl: `https://shop.example/${'x'.repeat(MAX_WEBHOOK_URL_LENGTH)}` }, 'webhookUrl'],
      [{ webhookUrl: '' }, 'webhookUrl'],
      [{ webhookUrl: 42 }, 'webhookUrl'],
      [{}, 'webhookUrl'],
      [{ webhookUrl: 'https://shop.example/hooks', secret: 'x' }, 'secret'],
      [[], undefined],
    ]
    for (const [body, param] of cases) assertProblem(await endpoint(merchant, 'PUT', body), 400, param, JSON.stringify(body).slice(0, 80))
    assert.equal((await endpoint(merchant)).body.webhookUrl, before)
  })

  test('off the local chain: https only, and no internal address written in it (the delivery vets names)', () => {
    const offLocal = { httpsOnly: true, refuseInternal: true }
    assert.equal(parseWebhookUrl('https://shop.example/hooks', offLocal), 'https://shop.example/hooks')
    for (const url of ['http://shop.example/hooks', 'https://127.0.0.1/hooks', 'https://10.1.2.3/x', 'https://169.254.169.254/latest', 'https://[::1]/x', 'https://[fe80::1]/x']) {
      assert.throws(() => parseWebhookUrl(url, offLocal), (error: any) => error.status === 400 && error.param === 'webhookUrl', url)
    }
    assert.equal(parseWebhookUrl('http://127.0.0.1:3000/hooks', { httpsOnly: false }), 'http://127.0.0.1:3000/hooks')
  })
})

describe('rotating the secret', () => {
  test('answers the new secret once; during the overlap the real deliveries verify with the old and with the new one alone', async () => {
    const before = Date.now()
    const answer = await rotate(merchant)
    assert.equal(answer.status, 201, JSON.stringify(answer.body))
    assert.equal(answer.headers.get('cache-control'), 'no-store')
    newSecret = answer.body.secret
    assert.match(newSecret, /^whsec_[A-Za-z0-9+/]{43}=$/)
    assert.notEqual(newSecret, oldSecret)
    assert.equal(answer.body.webhookUrl, receiver.url)
    const [current, previous] = answer.body.secrets
    assert.equal(answer.body.secrets.length, 2)
    assert.equal(current.expiresAt, null)
    const overlapEnds = Date.parse(previous.expiresAt)
    assert.ok(overlapEnds >= before + 24 * 3_600_000 - 60_000 && overlapEnds <= Date.now() + 24 * 3_600_000 + 60_000, previous.expiresAt)

    const received = await nextDelivery(merchant, receiver)
    assert.equal(received.signatures.length, 2)
    assert.ok(verifiesWith(oldSecret, received), 'a receiver holding only the old secret')
    assert.ok(verifiesWith(newSecret, received), 'a receiver holding only the new secret')
    assert.deepEqual((await merchantWebhookSecrets(f.db.pool, testSealer, merchant.id)).map((s) => s.secret), [newSecret, oldSecret], 'what the admin command prints')

    const later = await endpoint(merchant)
    assert.equal(later.status, 200)
    assert.equal(later.body.secret, undefined)
    assert.ok(!JSON.stringify(later.body).includes(newSecret.slice('whsec_'.length, 20)), 'no later read shows it')
    assert.deepEqual(later.body.secrets, answer.body.secrets)
  })

  test('another merchant sees none of it, changes none of it, and its own rotation leaves the first one’s signatures alone', async () => {
    const theirs = await endpoint(other)
    assert.equal(theirs.body.webhookUrl, otherReceiver.url)
    assert.equal(theirs.body.secrets.length, 1, 'the first merchant’s rotation is not the other’s')
    const theirDelivery = await nextDelivery(other, otherReceiver)
    assert.deepEqual([verifiesWith(otherOldSecret, theirDelivery), verifiesWith(oldSecret, theirDelivery), verifiesWith(newSecret, theirDelivery)], [true, false, false])

    const ended = await rotate(other, { overlapHours: 0 })
    assert.equal(ended.status, 201, JSON.stringify(ended.body))
    assert.equal(ended.body.secrets.length, 1)
    otherNewSecret = ended.body.secret
    const afterTheirs = await nextDelivery(other, otherReceiver)
    assert.deepEqual([verifiesWith(ended.body.secret, afterTheirs), verifiesWith(otherOldSecret, afterTheirs)], [true, false], 'overlap 0 ends the old secret at once')

    const mine = await nextDelivery(merchant, receiver)
    assert.deepEqual([verifiesWith(oldSecret, mine), verifiesWith(newSecret, mine), verifiesWith(ended.body.secret, mine)], [true, true, false])
    assert.equal((await endpoint(merchant)).body.webhookUrl, receiver.url)
    assert.equal((await endpoint(merchant)).body.secrets.length, 2)
  })

  test('live secrets are bounded: a third rotation within the overlap is a 409 unless it ends the others now', async () => {
    const third = await rotate(merchant, { overlapHours: 1 })
    assert.equal(third.status, 201, JSON.stringify(third.body))
    assert.equal(third.body.secrets.length, 3)
    const refused = await rotate(merchant)
    assertProblem(refused, 409, 'overlapHours', 'a fourth live secret')
    assert.match(refused.body.detail, /3 webhook secrets sign for this merchant already; the next one ends at .*overlapHours 0/)
    assert.equal((await endpoint(merchant)).body.secrets.length, 3, 'the refused rotation changed nothing')

    const reset = await rotate(merchant, { overlapHours: 0 })
    assert.equal(reset.status, 201, JSON.stringify(reset.body))
    assert.equal(reset.body.secrets.length, 1)
    const received = await nextDelivery(merchant, receiver)
    assert.equal(received.signatures.length, 1)
    assert.deepEqual([reset.body.secret, third.body.secret, newSecret, oldSecret].map((secret) => verifiesWith(secret, received)), [true, false, false, false])
  })

  test('a global rotation (npm run admin) still rotates every merchant, those that rotated their own included', async () => {
    const [mine] = await merchantWebhookSecrets(f.db.pool, testSealer, merchant.id)
    const global = await rotateWebhookSecret(f.db, testSealer, { overlapHours: 1 })
    for (const [who, at, own] of [[merchant, receiver, mine!.secret], [other, otherReceiver, otherNewSecret]] as const) {
      const printed = deriveMerchantSecret(global.secret.secret, who.id)
      const received = await nextDelivery(who, at)
      assert.deepEqual([verifiesWith(printed, received), verifiesWith(own, received)], [true, true], 'the secret the admin command prints, and the merchant’s own until the overlap ends')
      assert.deepEqual((await merchantWebhookSecrets(f.db.pool, testSealer, who.id)).map((s) => s.secret), [printed, own])
      assert.equal((await endpoint(who)).body.secrets.length, 2)
    }
  })

  test('the typed client reads, changes and rotates', async () => {
    const client = new MerchantClient({ baseUrl: f.checkout.url, credentials: { ...other.credentials, ca: f.checkout.caCertificatePem }, servername: 'localhost' })
    try {
      assert.deepEqual(await client.getWebhookEndpoint(), (await endpoint(other)).body)
      await assert.rejects(client.setWebhookUrl('gopher://shop.example'), (error: any) => error.status === 400 && error.problem.param === 'webhookUrl')
      assert.equal((await client.setWebhookUrl(otherReceiver.url)).webhookUrl, otherReceiver.url)
      const rotation = await client.rotateWebhookSecret({ overlapHours: 0 })
      const received = await nextDelivery(other, otherReceiver)
      assert.deepEqual([verifiesWith(rotation.secret, received), verifiesWith(otherNewSecret, received)], [true, false])
      assert.equal((await client.getWebhookEndpoint()).secrets.length, 1)
    } finally {
      await client.close()
    }
  })

  test('rotations are limited per merchant and replica: past the limit a 429 with Retry-After, and nothing changes', async () => {
    const engine = await f.startCheckout({ WEBHOOK_ROTATIONS_PER_HOUR: '2' })
    try {
      const third = await f.createMerchant()
      const asThird = (body?: unknown) => f.request(third.credentials, 'POST', '/api/v1/webhook-endpoint/rotate-secret', body === undefined ? {} : { body }, engine)
      assert.equal((await asThird({ overlapHours: 0 })).status, 201)
      const last = await asThird({ overlapHours: 0 })
      assert.equal(last.status, 201)
      const limited = await asThird({ overlapHours: 0 })
      assertProblem(limited, 429, undefined, 'a third rotation within the hour')
      assert.match(limited.headers.get('retry-after') ?? '', /^[1-9][0-9]*$/)
      assert.match(limited.body.detail, /more than 2 webhook secret rotations an hour/)
      const [live] = await merchantWebhookSecrets(f.db.pool, testSealer, third.id)
      assert.equal(live!.secret, last.body.secret, 'the refused one changed nothing')
      const another = await f.request(other.credentials, 'POST', '/api/v1/webhook-endpoint/rotate-secret', { body: { overlapHours: 0 } }, engine)
      assert.equal(another.status, 201, 'another merchant has its own allowance')
      otherNewSecret = another.body.secret
    } finally {
      await engine.stop()
    }
  })

  test('bad bodies are problems naming the field', async () => {
    for (const [body, param] of [
      [{ overlapHours: -1 }, 'overlapHours'],
      [{ overlapHours: 169 }, 'overlapHours'],
      [{ overlapHours: 1.5 }, 'overlapHours'],
      [{ overlapHours: '24' }, 'overlapHours'],
      [{ overlapHours: 1, now: true }, 'now'],
    ] as const) {
      assertProblem(await rotate(merchant, body), 400, param, JSON.stringify(body))
    }
    assert.equal((await endpoint(merchant)).body.secrets.length, 2, 'nothing changed')
  })
})
