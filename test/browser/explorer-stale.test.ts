/**
 * Issue 43 item 4: the explorer's page shows no stale state, in a real Chromium against a real explorer
 * on anvil. The search box's text and hint belong to the search that made them and are gone after moving
 * to another view; a filter form the page refuses (a Min amount with too many decimals) empties the
 * results under it instead of leaving the previous filters' answer there; a filter the API refuses in the
 * URL (a bad payer) is said once, not once per part of the view.
 */
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import type { Page } from 'puppeteer-core'
import type { Settlement } from '../../src/wire/settlement.js'
import { waitFor, startExplorerWorld, type ExplorerWorld } from '../../src/devnet/testing/index.js'

let world: ExplorerWorld

before(async () => {
  world = await startExplorerWorld(8)
})

after(() => world?.stop())

async function openPage(path: string): Promise<Page> {
  const page = await world.browser.newPage()
  await page.setViewport({ width: 1280, height: 900 })
  await page.goto(world.explorer.url + path)
  return page
}

const searchBox = (page: Page) => page.evaluate(() => ({ text: (document.getElementById('search-input') as HTMLInputElement).value, hint: document.getElementById('search-hint')!.textContent }))
const rowCount = (page: Page) => page.$$eval('#view tbody tr', (rows) => rows.length)

describe('no stale state on the explorer page', () => {
  test('the search box’s text and hint go when the view changes', async () => {
    const target = (await world.explorer.get('/events?limit=1')).body.events[0] as Settlement
    const page = await openPage('/')
    await page.waitForSelector('#view tbody tr')
    await page.type('#search-input', target.txHash)
    await Promise.all([page.waitForFunction((h: string) => location.hash === h, {}, `#/tx/${target.txHash}`), page.keyboard.press('Enter')])
    await page.waitForSelector('#view[data-view="tx"] dl.fields')
    assert.deepEqual(await searchBox(page), { text: target.txHash, hint: '' }, 'where the search led: the text stays, the search is over')

    await Promise.all([page.waitForFunction(() => location.hash === '#/'), page.click('.brand')])
    await page.waitForSelector('#view[data-view="feed"] tbody tr')
    assert.deepEqual(await searchBox(page), { text: '', hint: '' }, 'another view: nothing of the last search')

    await page.type('#search-input', '0x1234')
    await page.keyboard.press('Enter')
    assert.match((await searchBox(page)).hint ?? '', /^Not understood/)
    await page.evaluate(() => void (location.hash = '#/events'))
    await page.waitForSelector('#view[data-view="events"] tbody tr')
    assert.deepEqual(await searchBox(page), { text: '', hint: '' })
    await page.close()
  })

  test('a Min amount the form refuses empties the results instead of keeping the previous ones', async () => {
    const target = (await world.explorer.get('/events?limit=1')).body.events[0] as Settlement
    const page = await openPage('/#/events')
    await page.waitForSelector('#view tbody tr')
    await page.waitForSelector('#view .filter-stats')
    await page.waitForSelector(`#filter-token option[value="${target.token}"]`)
    await page.select('#filter-token', target.token)
    await page.type('#filter-minAmount', '1.1234567')
    await page.click('#filters button[type=submit]')
    await waitFor('the amount refused', async () => (await page.$eval('#filter-problem', (p) => p.textContent ?? '')).includes('at most 6 decimals') || undefined)
    assert.equal(await rowCount(page), 0, 'no row of the unfiltered answer under the refused filters')
    assert.equal(await page.$eval('#view .totals', (p) => p.textContent), 'No results shown: correct the filters above, then press Apply')
    assert.equal(await page.$('#view .filter-stats'), null, 'no totals of the previous filters either')
    assert.equal(new URL(page.url()).hash, '#/events')

    await page.click('#filter-minAmount', { count: 3 })
    await page.type('#filter-minAmount', '1')
    await Promise.all([page.waitForFunction(() => location.hash.includes('minAmount=')), page.click('#filters button[type=submit]')])
    await page.waitForSelector('#view tbody tr')
    assert.match(await page.$eval('#view .totals', (p) => p.textContent ?? ''), /settlements? match/)
    await page.close()
  })

  test('a bad payer in the URL shows its error once', async () => {
    const page = await openPage('/#/events?payer=0xnope')
    await waitFor('the error', async () => !/^Loading/.test(await page.$eval('#view .totals', (p) => p.textContent ?? '')) || undefined)
    const error = await page.$eval('#view .totals', (p) => p.textContent!)
    assert.match(error, /payer/)
    // The totals and chart would have answered with the same refusal: wait until nothing more is asked.
    await page.waitForNetworkIdle({ idleTime: 300, timeout: 10_000 })
    const view = await page.$eval('#view', (v) => v.textContent!)
    assert.equal(view.split(error).length - 1, 1, `said once: ${view}`)
    await page.close()
  })

  test('the default chart on a fresh chain: its time axis names both ends, today at the right', async () => {
    const page = await openPage('/#/events')
    await page.waitForSelector('#view .series-axis span')
    const ends = await page.$$eval('#view .series-axis span', (spans) => spans.map((s) => s.textContent))
    const day = (daysAgo: number) => new Date(Date.now() - daysAgo * 86_400_000).toISOString().slice(0, 10)
    // The last 30 days counted back from now: 31 day buckets, the first partly in range.
    assert.deepEqual(ends, [day(30), day(0)])
    assert.equal(await page.$$eval('#view .series-chart rect', (bars) => bars.length), 31)
    await page.close()
  })
})
