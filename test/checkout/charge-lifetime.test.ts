/**
 * Issue 43 item 9: a charge's own lifetime. `expiresInSeconds` on creation sets the deadline to that many
 * seconds after creation, from 60 up to the engine's CHARGE_TTL_SECONDS (still the default); outside that,
 * or not a JSON integer, a 400 problem naming it, with nothing stored. Real merchant API over mutual TLS.
 */
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { nextOrderId, startCheckoutFixture, type CheckoutFixture, type TestMerchant } from '../../src/devnet/testing/index.js'

let f: CheckoutFixture
let merchant: TestMerchant

before(async () => {
  f = await startCheckoutFixture({ CHARGE_TTL_SECONDS: '900' })
  merchant = await f.createMerchant()
})
after(() => f?.stop())

const create = (extra: Record<string, unknown>) => {
  const token = f.chain.deployment.tokens[0]!
  const body = { amount: '25000000', token: token.address, beneficiary: f.chain.deployment.recipients[0]!, currency: token.symbol, orderId: nextOrderId(), ...extra }
  return f.request(merchant.credentials, 'POST', '/api/v1/charges', { body })
}

const lifetime = (charge: { createdAt: string; deadline: string }) => (Date.parse(charge.deadline) - Date.parse(charge.createdAt)) / 1000

test('expiresInSeconds sets the charge’s deadline; without it, CHARGE_TTL_SECONDS', async () => {
  const short = await create({ expiresInSeconds: 120 })
  assert.equal(short.status, 201, JSON.stringify(short.body))
  assert.equal(lifetime(short.body), 120)
  const plain = await create({})
  assert.equal(lifetime(plain.body), 900)
  assert.equal(lifetime((await create({ expiresInSeconds: 900 })).body), 900)
})

test('a lifetime below 60 s, above CHARGE_TTL_SECONDS or not an integer is a 400 naming expiresInSeconds', async () => {
  for (const [value, detail] of [[30, /60/], [901, /at most 900, this engine's CHARGE_TTL_SECONDS/], ['120', /JSON number/], [90.5, /integer/]] as const) {
    const answer = await create({ expiresInSeconds: value })
    assert.equal(answer.status, 400, JSON.stringify(answer.body))
    assert.equal(answer.body.param, 'expiresInSeconds')
    assert.match(answer.body.detail, detail, answer.body.detail)
  }
})
