/**
 * `npm run docs:screenshots`: the explorer page's screenshots in docs/ (the live feed, an address, the
 * statistics; desktop 1280 px and phone 390 px wide, device scale factor 1, times in UTC), made again
 * from scratch: a throwaway anvil whose clock starts two weeks back, the devnet's contracts, real
 * payments from its payers (src/devnet/testing/local-chain.ts) spread over those days so the chart has days to
 * show, the explorer on a free port and a headless Chromium. While the feed is open a settlement arrives
 * and a reorg takes it back, so the feed shows one struck out. Each view is also opened in the dark
 * scheme (those pictures land in .data/screenshots/docs/ for a person to look at) and, at phone width,
 * checked for horizontal overflow: the script fails on one, or on a console error. Everything started
 * here is stopped before the script ends.
 */
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser, Page } from 'puppeteer-core'
import { createChainClient } from '../../src/chain/index.js'
import { explorerOptionsFromEnv } from '../../src/config/index.js'
import { startAnvil } from '../../src/devnet/anvil/index.js'
import { deployDevnet } from '../../src/devnet/local-devnet/index.js'
import { startExplorer } from '../../src/explorer/index.js'
import { launchChromium, waitFor, chainRpc, payerAddress, paymentsBetweenPayers, sendSettlements, type LocalChain } from '../../src/devnet/testing/index.js'

const DAY = 86_400
const DAYS = 14
const DOCS = 'docs'
const DARK_DIR = '.data/screenshots/docs'
/** PNGs above this are worth cropping further (the README shows two of them). */
const MAX_BYTES = 250_000

const sizes = { desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } } as const
type Size = keyof typeof sizes

interface Shot {
  name: string
  hash: string
  /** Selectors that must be drawn before the picture is taken. */
  ready: string[]
  /** An element to crop to (the whole of it); else the first screen of the page. */
  crop?: string
  /** What happens on the page once it is drawn, before the picture. */
  act?(page: Page): Promise<void>
}

const now = () => Math.floor(Date.now() / 1000)
const cleanups: (() => Promise<unknown>)[] = []

/** Amounts in token units, cents to thousands, so the pictures show how amounts are written. */
const AMOUNTS = [12_500000n, 149_990000n, 1_250_000000n, 48_000000n, 3_200000n, 980_000000n, 25_000000n, 2_400_750000n, 75_000000n, 310_400000n, 19_990000n, 5_600_000000n, 64_000000n]

/**
 * Payments at a few hours of each of the last DAYS days (both tokens, some through an acquirer, a few
 * between payers), a varying number a day, and today's in the last hours up to a minute ago.
 */
async function makeHistory(chain: LocalChain): Promise<number> {
  const publicClient = createChainClient({ rpcUrl: chain.rpcUrl, pollingIntervalMs: 50 })
  const today = Math.floor(now() / DAY) * DAY
  const moments: [at: number, count: number][] = []
  for (let day = DAYS - 1; day >= 1; day--) {
    for (const hour of [9, 14, 19].slice(0, 1 + (day % 3))) moments.push([today - day * DAY + hour * 3600 + day * 420, 1 + ((day * hour) % 4)])
  }
  for (const minutesAgo of [300, 130, 45, 12, 1]) moments.push([now() - minutesAgo * 60, 4])
  let sent = 0
  for (const [at, count] of moments) {
    const ahead = at - Number((await publicClient.getBlock()).timestamp)
    if (ahead > 0) await chainRpc(chain.rpcUrl, 'evm_increaseTime', [ahead])
    // Each batch from other payers to other recipients: sendSettlements starts at the first of each.
    const offset = sent
    const rotate = <T>(items: T[]) => [...items.slice(offset % items.length), ...items.slice(0, offset % items.length)]
    const turned = { ...chain, deployment: { ...chain.deployment, payerKeys: rotate(chain.deployment.payerKeys), recipients: rotate(chain.deployment.recipients) } }
    await sendSettlements(turned, count, { principal: (i) => AMOUNTS[(offset + i) % AMOUNTS.length]!, recipient: paymentsBetweenPayers(turned) })
    sent += count
  }
  return sent
}

/**
 * A settlement arrives while the feed is open, then a reorg takes it back: the feed strikes it out (and
 * the next page opened never sees it).
 */
async function reorgOne(chain: LocalChain, page: Page): Promise<void> {
  const snapshot = await chainRpc<string>(chain.rpcUrl, 'evm_snapshot')
  const [doomed] = await sendSettlements(chain, 1, { principal: () => 42_000000n })
  await page.waitForSelector(`#view tbody tr[data-tx="${doomed!.txHash}"]`, { timeout: 10_000 })
  await chainRpc(chain.rpcUrl, 'evm_revert', [snapshot])
  await page.waitForSelector(`#view tbody tr.removed[data-tx="${doomed!.txHash}"]`, { timeout: 10_000 })
}

async function open(browser: Browser, url: string, size: Size, scheme: 'light' | 'dark', shot: Shot): Promise<Page> {
  const page = await browser.newPage()
  const problems: string[] = []
  page.on('console', (message) => message.type() === 'error' && problems.push(message.text()))
  page.on('pageerror', (error) => problems.push(String(error)))
  await page.emulateTimezone('UTC')
  await page.emulateMediaFeatures([{ name: 'prefers-color-scheme', value: scheme }])
  await page.setViewport({ ...sizes[size], deviceScaleFactor: 1 })
  await page.goto(`${url}/${shot.hash}`)
  for (const selector of shot.ready) await page.waitForSelector(selector, { timeout: 20_000 })
  await shot.act?.(page)
  // Let the totals (redrawn at most once a second) and fonts settle.
  await new Promise((resolve) => setTimeout(resolve, 1200))
  if (problems.length > 0) throw new Error(`${shot.name} (${size}, ${scheme}): ${problems.join('; ')}`)
  return page
}

/** Horizontal overflow at this width: the page's and any element wider than the screen outside a scroller. */
async function overflow(page: Page): Promise<string | undefined> {
  const { scrollWidth, innerWidth } = await page.evaluate(() => ({ scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth }))
  return scrollWidth > innerWidth ? `scrollWidth ${scrollWidth} > ${innerWidth}` : undefined
}

/** The first screen (no lower than the end of `<main>`), or the element to crop to with a margin around it. */
async function picture(page: Page, shot: Shot): Promise<Uint8Array> {
  if (!shot.crop) {
    const { width, height } = await page.evaluate(() => ({ width: window.innerWidth, height: Math.min(window.innerHeight, Math.ceil(document.querySelector('main')!.getBoundingClientRect().bottom)) }))
    return page.screenshot({ type: 'png', clip: { x: 0, y: 0, width, height } })
  }
  const box = await page.$eval(shot.crop, (element) => {
    const { x, y, width, height } = element.getBoundingClientRect()
    return { x: x + window.scrollX, y: y + window.scrollY, width, height }
  })
  const pad = Math.min(16, box.x)
  return page.screenshot({ type: 'png', captureBeyondViewport: true, clip: { x: box.x - pad, y: Math.max(0, box.y - pad), width: box.width + 2 * pad, height: box.height + 2 * pad } })
}

async function main(): Promise<void> {
  const anvil = await startAnvil({ port: 0, timestamp: now() - DAYS * DAY })
  cleanups.push(() => anvil.stop())
  console.log(`anvil on ${anvil.rpcUrl}, clock from ${DAYS} days ago; sending payments…`)
  const deployment = await deployDevnet({ rpcUrl: anvil.rpcUrl })
  const chain: LocalChain = { rpcUrl: anvil.rpcUrl, deployment, stop: anvil.stop }
  const settled = await makeHistory(chain)
  const dataDir = mkdtempSync(join(tmpdir(), 'explorer-screenshots-'))
  const removeDataDir = () => rmSync(dataDir, { recursive: true, force: true })
  cleanups.push(async () => removeDataDir())
  // puppeteer ends the process on Ctrl-C without waiting for the cleanups; anvil has its own exit hook.
  process.once('exit', removeDataDir)
  const explorer = await startExplorer(
    explorerOptionsFromEnv({
      CHAIN_ID: String(deployment.chainId),
      RPC_URL: anvil.rpcUrl,
      SETTLEMENT_CONTRACT: deployment.settlementContract,
      START_BLOCK: String(deployment.startBlock),
      CONFIRMATION_BLOCKS: '0',
      EXPLORER_PORT: '0',
      POLL_INTERVAL_MS: '100',
      LOG_LEVEL: 'error',
      DATA_DIR: dataDir,
    }),
  )
  cleanups.push(() => explorer.stop())
  await waitFor('the explorer to index every payment', async () => {
    const stats = (await (await fetch(`${explorer.url}/stats`)).json()) as { totalSettlements?: number }
    return stats.totalSettlements === settled
  })
  console.log(`${settled} settlements indexed by ${explorer.url}`)

  // The busiest of the payers (some are paid by other payers too), so the address view has both roles.
  const counted = await Promise.all(
    deployment.payerKeys.map(async (_, k) => {
      const address = payerAddress(chain, k)
      const page = (await (await fetch(`${explorer.url}/events?address=${address}&limit=1`)).json()) as { total: number }
      return { address, total: page.total }
    }),
  )
  const { address } = counted.sort((a, b) => b.total - a.total)[0]!
  const shots: Shot[] = [
    { name: 'feed', hash: '', ready: ['#view tbody tr', '#view .totals-table tr[data-token]'], act: (page) => reorgOne(chain, page) },
    { name: 'address', hash: `#/address/${address}`, ready: ['#view[data-view="address"] tbody tr', '#view .totals', '#view .filter-stats tr[data-token]', '#view .series-chart rect'] },
    { name: 'stats', hash: '#/events', ready: ['.filter-stats tr[data-token]', '.series-chart rect'], crop: '.filter-stats' },
  ]

  const browser = await launchChromium()
  cleanups.push(() => browser.close())
  mkdirSync(DARK_DIR, { recursive: true })
  const problems: string[] = []
  for (const shot of shots) {
    for (const size of ['desktop', 'phone'] as const) {
      for (const scheme of ['light', 'dark'] as const) {
        const page = await open(browser, explorer.url, size, scheme, shot)
        const wide = size === 'phone' ? await overflow(page) : undefined
        if (wide) problems.push(`${shot.name} at ${size} (${scheme}): ${wide}`)
        const png = await picture(page, shot)
        await page.close()
        const file = scheme === 'light' ? join(DOCS, `explorer-${shot.name}-${size}.png`) : join(DARK_DIR, `explorer-${shot.name}-${size}-dark.png`)
        writeFileSync(file, png)
        const bytes = statSync(file).size
        console.log(`${file}: ${Math.round(bytes / 1024)} KB${bytes > MAX_BYTES && scheme === 'light' ? ' (over 250 KB: crop it)' : ''}`)
      }
    }
  }
  if (problems.length > 0) throw new Error(`overflowing horizontally:\n${problems.join('\n')}`)
}

async function stopAll(): Promise<void> {
  for (const cleanup of cleanups.reverse()) await cleanup().catch((error: Error) => console.error(`stopping: ${error.message}`))
}

process.once('SIGINT', () => void stopAll().finally(() => process.exit(130)))
try {
  await main()
} catch (error) {
  console.error(error)
  process.exitCode = 1
} finally {
  await stopAll()
}
