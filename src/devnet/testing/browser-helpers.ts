/**
 * What the browser tests do with pages: a Chromium to open them in, screenshots kept under
 * `.data/screenshots/` for a person to look at, QR codes read back from a screenshot's pixels (decoded to
 * RGBA by the browser itself, then read by jsQR), and the wallet command run as a person would run it.
 */
import { spawn } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import chromium from '@sparticuz/chromium'
import jsQRModule from 'jsqr'
import puppeteer, { type Browser, type Page } from 'puppeteer-core'
import { scriptArgs } from './script.js'
import { startTestExplorer, waitForHead, type TestExplorer } from './test-explorer.js'
import { sendSettlements, startLocalChain, type LocalChain } from './local-chain.js'

// jsqr is CommonJS whose module.exports is the function, while its types declare it as the default export.
const jsQR = jsQRModule as unknown as typeof jsQRModule.default

export const SCREENSHOT_DIR = '.data/screenshots'

/**
 * @sparticuz/chromium's GPU flags: it draws through SwiftShader, a GPU emulated on the CPU, made for hosts
 * that need WebGL. The pages tested here need none, and Chromium's own software compositing draws them
 * with a third less CPU (the explorer page's file: Chromium 24.2 -> 14.3 CPU-s).
 */
const EMULATED_GPU = /^--(use-gl|use-angle|enable-unsafe-swiftshader|in-process-gpu|ignore-gpu-blocklist)\b/

/** A headless Chromium from npm (@sparticuz/chromium), drawing without a GPU, without background requests of its own. */
export async function launchChromium(): Promise<Browser> {
  return puppeteer.launch({
    executablePath: await chromium.executablePath(),
    args: [...chromium.args.filter((arg) => !EMULATED_GPU.test(arg)), '--disable-gpu', '--no-sandbox', '--disable-background-networking'],
    headless: true,
  })
}

export async function screenshot(page: Page, name: string, fullPage = true): Promise<Uint8Array> {
  const png = await page.screenshot({ encoding: 'binary', fullPage })
  mkdirSync(SCREENSHOT_DIR, { recursive: true })
  writeFileSync(join(SCREENSHOT_DIR, `${name}.png`), png)
  return png
}

/** The text of the QR code in a PNG screenshot, or undefined when none is found. */
export async function readQrCode(browser: Browser, png: Uint8Array): Promise<string | undefined> {
  const page = await browser.newPage()
  try {
    const { width, height, rgba } = await page.evaluate(async (dataUrl: string) => {
      const image = new Image()
      image.src = dataUrl
      await image.decode()
      const canvas = document.createElement('canvas')
      canvas.width = image.naturalWidth
      canvas.height = image.naturalHeight
      const context = canvas.getContext('2d')!
      context.drawImage(image, 0, 0)
      const bytes = context.getImageData(0, 0, canvas.width, canvas.height).data
      let binary = ''
      for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000))
      return { width: canvas.width, height: canvas.height, rgba: btoa(binary) }
    }, `data:image/png;base64,${Buffer.from(png).toString('base64')}`)
    return jsQR(new Uint8ClampedArray(Buffer.from(rgba, 'base64')), width, height)?.data
  } finally {
    await page.close()
  }
}

/** `npx tsx scripts/wallet.ts pay <link>` in a child process; resolves with its exit code and output. */
export function runWalletCommand(link: string, env: Record<string, string>, flags: string[] = []): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, [...scriptArgs('scripts/wallet.ts'), 'pay', link, ...flags], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => (output += chunk))
  child.stderr.on('data', (chunk: Buffer) => (output += chunk))
  return new Promise((resolve, reject) => {
    child.once('error', reject)
    child.once('close', (code) => resolve({ code, output }))
  })
}

/** Marks the page so that a later check can tell it was never reloaded. */
export const markPage = (page: Page) => page.evaluate(() => void ((window as unknown as { unreloaded: boolean }).unreloaded = true))
export const wasReloaded = async (page: Page) => !(await page.evaluate(() => (window as unknown as { unreloaded?: boolean }).unreloaded === true))

export interface PhoneFit {
  scrollWidth: number
  innerWidth: number
  /** Elements whose box, or whose content, reaches past the window or past their own box, unless an ancestor scrolls or clips it. */
  stickingOut: string[]
  /** Details values that wrap where a person would not expect it: an amount over two lines, an address over more than two. */
  badWraps: string[]
}

/**
 * The check, run in the page. Kept as source text: the test build keeps function names by wrapping named
 * functions in a helper that does not exist inside the page.
 */
const PHONE_FIT = `(() => {
  const width = window.innerWidth
  const name = (element) => element.tagName.toLowerCase() + (element.id ? '#' + element.id : '') + [...element.classList].map((c) => '.' + c).join('')
  const clipped = (element) => {
    for (let up = element.parentElement; up && up !== document.documentElement; up = up.parentElement) if (getComputedStyle(up).overflowX !== 'visible') return true
    return false
  }
  const stickingOut = []
  for (const element of document.body.querySelectorAll('*')) {
    const style = getComputedStyle(element)
    if (style.display === 'none' || style.visibility === 'hidden' || clipped(element)) continue
    const box = element.getBoundingClientRect()
    if (box.width === 0 && box.height === 0) continue
    if (box.right > width + 0.5 || box.left < -0.5) stickingOut.push(name(element) + ' spans ' + Math.round(box.left) + '..' + Math.round(box.right) + ' px')
    else if (style.overflowX === 'visible' && style.display !== 'inline' && element.clientWidth > 0 && element.scrollWidth > element.clientWidth + 1) {
      stickingOut.push(name(element) + "'s content is " + element.scrollWidth + ' px wide in ' + element.clientWidth + ' px')
    }
  }
  const lines = (element) => {
    const range = document.createRange()
    range.selectNodeContents(element)
    return new Set([...range.getClientRects()].filter((r) => r.width > 0).map((r) => Math.round(r.top))).size
  }
  const badWraps = []
  for (const value of document.querySelectorAll('dd')) {
    const text = value.textContent.trim()
    if (/^[\d,]+\.\d+ [A-Z]{2,6}$/.test(text) && lines(value) > 1) badWraps.push('"' + text + '" on ' + lines(value) + ' lines')
    if (/^0x[0-9a-fA-F]{40}$/.test(text) && lines(value) > 2) badWraps.push(text + ' on ' + lines(value) + ' lines')
  }
  return { scrollWidth: document.documentElement.scrollWidth, innerWidth: width, stickingOut, badWraps }
})()`

/** How a page fits its window: what a person on a phone would see scroll sideways or spill out of a card. */
export const phoneFit = (page: Page): Promise<PhoneFit> => page.evaluate(PHONE_FIT) as Promise<PhoneFit>

export interface ExplorerWorld {
  chain: LocalChain
  explorer: TestExplorer
  browser: Browser
  stop(): Promise<void>
}

/** A real explorer on anvil holding `settlements` payments (confirmed at once), and a Chromium to look at it. */
export async function startExplorerWorld(settlements: number): Promise<ExplorerWorld> {
  const chain = await startLocalChain()
  await sendSettlements(chain, settlements)
  const explorer = await startTestExplorer(chain, { CONFIRMATION_BLOCKS: '0' })
  await waitForHead(chain, explorer.url)
  const browser = await launchChromium()
  return {
    chain,
    explorer,
    browser,
    async stop() {
      await browser.close()
      await explorer.stop()
      await chain.stop()
    },
  }
}
