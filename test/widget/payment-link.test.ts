/**
 * Issue 21 item 12, the payment page must not break the QR code the payer is looking at (real widget,
 * anvil, embedded PostgreSQL, a charge stored as the checkout engine stores it): a HEAD (link checkers,
 * previews) issues no token, and a second load within WIDGET_LINK_INTERVAL_SECONDS of a still-unused link
 * is a 429 with Retry-After and no link, so the first page's token still opens the session. A used or
 * older link gives way to a fresh one.
 */
import assert from 'node:assert/strict'
import { setTimeout as sleep } from 'node:timers/promises'
import { after, before, test } from 'node:test'
import { widgetOptionsFromEnv } from '../../src/config/widget-options.js'
import type { Database } from '../../src/processor/db/open-database.js'
import { startWidget, type RunningWidget } from '../../src/processor/widget/index.js'
import { createLogger } from '../../src/platform/observability/logger.js'
import type { LocalChain } from '../../src/devnet/testing/index.js'
import { startChainAndDatabase } from '../../src/devnet/testing/index.js'
import { storeCharge } from './stored-charge.js'

const INTERVAL_SECONDS = 2
let chain: LocalChain
let db: Database
let widget: RunningWidget
let chargeId: string

before(async () => {
  ;({ chain, db } = await startChainAndDatabase())
  const env = { RPC_URL: chain.rpcUrl, SETTLEMENT_CONTRACT: chain.deployment.settlementContract, START_BLOCK: String(chain.deployment.startBlock), WIDGET_PORT: '0', WIDGET_LINK_INTERVAL_SECONDS: String(INTERVAL_SECONDS) }
  widget = await startWidget(widgetOptionsFromEnv(env), { db, log: createLogger('silent') })
  chargeId = `ch_${'a1'.repeat(12)}`
  await storeCharge(db, chain, { id: chargeId, orderId: 'link-1', merchantName: 'Link Store' })
})
after(async () => {
  await widget?.stop()
  await db?.close()
  await chain?.stop()
})

async function loadPage(method = 'GET'): Promise<{ status: number; token: string | undefined; retryAfter: string | null }> {
  const response = await fetch(`${widget.url}/s/${chargeId}`, { method })
  const html = await response.text()
  return { status: response.status, token: /\?t=([A-Za-z0-9_-]+)/.exec(html)?.[1], retryAfter: response.headers.get('retry-after') }
}

const openSession = async (token: string) => (await fetch(`${widget.url}/s/${chargeId}/api/session`, { headers: { authorization: `Bearer ${token}` } })).status

test('HEAD and a second load right after do not replace the link the payer is looking at', async () => {
  const shown = await loadPage()
  assert.equal(shown.status, 200)
  assert.ok(shown.token)
  assert.equal((await loadPage('HEAD')).status, 200)
  const second = await loadPage()
  assert.deepEqual(second, { status: 429, token: undefined, retryAfter: String(INTERVAL_SECONDS) })
  assert.equal(await openSession(shown.token!), 200)
})

test('issue 43: the load that shows no QR code says why and how long, and its script loads the page again then', async () => {
  await sleep(INTERVAL_SECONDS * 1000 + 200)
  const shown = await loadPage()
  assert.equal(shown.status, 200)
  const html = await (await fetch(`${widget.url}/s/${chargeId}`)).text()
  const note = /<p id="link-shown" data-retry-seconds="(\d+)">([^<]+)<\/p>/.exec(html)
  assert.ok(note, html)
  assert.equal(note[1], String(INTERVAL_SECONDS))
  assert.match(note[2]!, new RegExp(`^No QR code here yet: a payment link for this request was shown less than ${INTERVAL_SECONDS} seconds ago .* A new one shows here by itself in ${INTERVAL_SECONDS} seconds\\.$`))
  assert.match(html, /getElementById\('link-shown'\)[\s\S]*location\.reload\(\)/)
  // Used, as the next test expects of the link shown last.
  assert.equal(await openSession(shown.token!), 200)
})

test('a used link, or one older than the interval, gives way to a fresh one', async () => {
  const afterUse = await loadPage()
  assert.equal(afterUse.status, 200)
  assert.ok(afterUse.token)
  assert.equal((await loadPage()).status, 429)
  await sleep(INTERVAL_SECONDS * 1000 + 200)
  const fresh = await loadPage()
  assert.equal(fresh.status, 200)
  assert.notEqual(fresh.token, afterUse.token)
  assert.equal(await openSession(afterUse.token!), 401)
  assert.equal(await openSession(fresh.token!), 200)
})

test('a link used again once the charge is paid says it is paid, with any token, rather than inviting another payment', async () => {
  await db.pool.query(`UPDATE charges SET status = 'settled', tx_hash = $2, block_number = 1, log_index = 0, confirmations = 1 WHERE id = $1`, [chargeId, `0x${'ab'.repeat(32)}`])
  for (const token of ['x'.repeat(43), (await loadPage()).token ?? 'y'.repeat(43)]) {
    const response = await fetch(`${widget.url}/s/${chargeId}/api/session`, { headers: { authorization: `Bearer ${token}` } })
    assert.equal(response.status, 409)
    assert.match(((await response.json()) as { detail: string }).detail, /is already paid \(settled\): there is nothing more to pay/)
  }
})
