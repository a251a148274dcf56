/**
 * Issue 43 item 6: an idempotent replay and the payment token. A merchant whose first answer was lost asks
 * again with the same Idempotency-Key; whoever did get the first answer's token (a page the merchant drew,
 * a wallet it handed the link to) must still be able to use it. The replay hands out a token of its own
 * that works too, and either one's session call uses up both: one session per charge. Real merchant API
 * over mutual TLS and a real widget on one PostgreSQL.
 */
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { widgetOptionsFromEnv } from '../../src/config/widget-options.js'
import { startWidget, type RunningWidget } from '../../src/processor/widget/index.js'
import { createLogger } from '../../src/platform/observability/logger.js'
import { nextOrderId, startCheckoutFixture, type CheckoutFixture, type TestMerchant } from '../../src/devnet/testing/index.js'

let f: CheckoutFixture
let merchant: TestMerchant
let widget: RunningWidget

before(async () => {
  f = await startCheckoutFixture()
  merchant = await f.createMerchant()
  const { chain } = f
  const env = { RPC_URL: chain.rpcUrl, SETTLEMENT_CONTRACT: chain.deployment.settlementContract, START_BLOCK: String(chain.deployment.startBlock), WIDGET_PORT: '0' }
  widget = await startWidget(widgetOptionsFromEnv(env), { db: f.db, log: createLogger('silent') })
})
after(async () => {
  await widget?.stop()
  await f?.stop()
})

async function createTwice(): Promise<{ id: string; first: string; replayed: string }> {
  const token = f.chain.deployment.tokens[0]!
  const body = { amount: '25000000', token: token.address, beneficiary: f.chain.deployment.recipients[0]!, currency: token.symbol, orderId: nextOrderId() }
  const headers = { 'idempotency-key': `lost-${body.orderId}` }
  const first = await f.request(merchant.credentials, 'POST', '/api/v1/charges', { body, headers })
  const replay = await f.request(merchant.credentials, 'POST', '/api/v1/charges', { body, headers })
  assert.deepEqual([first.status, replay.status, replay.headers.get('idempotent-replayed'), replay.body.id], [201, 201, 'true', first.body.id])
  assert.match(replay.body.ephemeralToken, /^et_/)
  assert.notEqual(replay.body.ephemeralToken, first.body.ephemeralToken)
  return { id: first.body.id, first: first.body.ephemeralToken, replayed: replay.body.ephemeralToken }
}

const session = async (chargeId: string, token: string) => (await fetch(`${widget.url}/s/${chargeId}/api/session`, { headers: { authorization: `Bearer ${token}` } })).status

test('after a replay the first answer’s token still opens the session; the replay’s is then used up with it', async () => {
  const { id, first, replayed } = await createTwice()
  assert.equal(await session(id, first), 200, 'the first token survives the replay')
  assert.equal(await session(id, replayed), 401, 'one session per charge')
  assert.equal(await session(id, first), 401, 'single use')
})

test('the replay’s token opens the session too, and the first is then used up with it', async () => {
  const { id, first, replayed } = await createTwice()
  assert.equal(await session(id, replayed), 200)
  assert.equal(await session(id, first), 401)
})
