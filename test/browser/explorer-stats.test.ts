/**
 * The filter view's totals and chart (issue 17, the web page) in a real Chromium against a real explorer
 * on anvil: the totals per token equal the chain's settlements for the filters, and the SVG chart has a
 * bar per UTC day (per hour for a one-day range) whose heights' figures equal the settlements of that
 * bucket, computed from the chain's own logs. No console error.
 */
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import type { Browser, Page } from 'puppeteer-core'
import type { Settlement } from '../../src/wire/settlement.js'
import { settlementsOnChain, startTestExplorer, waitForHead, type TestExplorer, sendSettlements, startLocalChain, type LocalChain, launchChromium, screenshot } from '../../src/devnet/testing/index.js'

let chain: LocalChain
let explorer: TestExplorer
let browser: Browser
let onChain: Settlement[]
const consoleErrors: string[] = []

before(async () => {
  chain = await startLocalChain()
  await sendSettlements(chain, 18)
  explorer = await startTestExplorer(chain, { CONFIRMATION_BLOCKS: '0' })
  await waitForHead(chain, explorer.url)
  onChain = await settlementsOnChain(chain)
  browser = await launchChromium()
})

after(async () => {
  await browser?.close()
  await explorer?.stop()
  await chain?.stop()
})

async function openFilters(hash: string): Promise<Page> {
  const page = await browser.newPage()
  await page.emulateTimezone('UTC')
  await page.setViewport({ width: 1280, height: 900 })
  page.on('console', (message) => message.type() === 'error' && consoleErrors.push(`${page.url()}: ${message.text()}`))
  page.on('pageerror', (error) => consoleErrors.push(`${page.url()}: ${String(error)}`))
  await page.goto(`${explorer.url}/${hash}`)
  await page.waitForSelector('.filter-stats table tr[data-token]')
  await page.waitForSelector('.series-chart rect')
  return page
}

/** The chart's bars: their bucket start, settlements and the figures each says (its title). */
const bars = (page: Page) =>
  page.$$eval('.series-chart rect', (rects) => rects.map((r) => ({ start: Number(r.getAttribute('data-start')), settlements: Number(r.getAttribute('data-settlements')), title: r.querySelector('title')?.textContent ?? '' })))

/** Settlements per token address as the totals table shows them. */
const shownTotals = (page: Page) =>
  page.$$eval('.filter-stats tr[data-token]', (rows) => Object.fromEntries(rows.map((r) => [r.getAttribute('data-token'), Number(r.querySelectorAll('td')[1]!.textContent!.replace(/,/g, ''))])))

function perToken(matching: Settlement[]): Record<string, number> {
  const counts: Record<string, number> = {}
  for (const e of matching) counts[e.token] = (counts[e.token] ?? 0) + 1
  return counts
}

function checkBars(got: Awaited<ReturnType<typeof bars>>, matching: Settlement[], seconds: number): void {
  assert.ok(got.every((b, i) => b.start % seconds === 0 && (i === 0 || b.start === got[i - 1]!.start + seconds)), 'aligned, ascending, no gap')
  assert.ok(got.every((b) => b.title.includes('UTC')), 'every bar says its figures')
  for (const b of got.filter((b) => b.settlements > 0)) assert.match(b.title, /\(\d[\d,]*\.\d{2,} [A-Z]+(, \d[\d,]*\.\d{2,} [A-Z]+)?\)$/, 'volumes in token units')
  for (const b of got) assert.equal(b.settlements, matching.filter((e) => Math.floor(e.timestamp / seconds) * seconds === b.start).length, `bucket ${b.start}`)
  assert.equal(got.reduce((n, b) => n + b.settlements, 0), matching.length)
}

test('a recipient: totals per token and a bar per day of the last 30 equal the chain', async () => {
  const recipient = onChain[2]!.recipient
  const matching = onChain.filter((e) => e.recipient === recipient)
  const page = await openFilters(`#/events?recipient=${recipient}`)
  assert.deepEqual(await shownTotals(page), perToken(matching))
  const got = await bars(page)
  assert.ok(got.length === 30 || got.length === 31, `${got.length} days`)
  checkBars(got, matching, 86_400)
  assert.match(await page.$eval('.series-chart', (svg) => svg.getAttribute('aria-label') ?? ''), /Settlements per day/)
  await screenshot(page, 'explorer-filter-stats')
  await page.close()
})

test('an amount bound and one day: a bar per hour, equal to the chain', async () => {
  const day = new Date(onChain[0]!.timestamp * 1000).toISOString().slice(0, 10)
  const token = onChain[0]!.token
  const minAmount = [...onChain].filter((e) => e.token === token).map((e) => BigInt(e.amount)).sort((a, b) => (a < b ? -1 : 1))[1]!.toString()
  const dayStart = Date.parse(`${day}T00:00:00Z`) / 1000
  const matching = onChain.filter((e) => e.token === token && BigInt(e.amount) >= BigInt(minAmount) && e.timestamp >= dayStart && e.timestamp < dayStart + 86_400)
  assert.ok(matching.length > 0)
  const page = await openFilters(`#/events?token=${token}&minAmount=${minAmount}&from=${day}&to=${day}`)
  assert.deepEqual(await shownTotals(page), perToken(matching))
  const got = await bars(page)
  assert.equal(got.length, 24)
  assert.equal(got[0]!.start, dayStart)
  checkBars(got, matching, 3600)
  await page.close()
})

test('no console error on any page', () => {
  assert.deepEqual(consoleErrors, [])
})
