/**
 * A purchase end to end (issue 11): from the click on "Pay with stablecoin" in the demo store to "Paid" on
 * the store's order page, in a real browser against the whole processor with 1-second blocks, at
 * CONFIRMATION_BLOCKS=0 and 2, split into its parts — charge creation, the payment page, the session,
 * signing and submission, the queue, the broadcast, mining, indexing, reconciliation, the webhook and the
 * page update. The payer is the demo wallet in this process (the `npm run wallet` command would add its
 * own start-up), paying the moment the payment page has loaded.
 *
 * Every moment is a wall-clock timestamp on this machine: the browser's, the wallet's status pushes, the
 * explorer answering for the order reference (polled every 10 ms), the charge's `settled_at` in
 * PostgreSQL and the store's receipt of the verified `charge.settled` webhook.
 */
import type { Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { signPayment } from '../../src/wire/index.js'
import { deriveLocalKey } from '../../src/config/index.js'
import { payAsDemoPayer } from '../../src/devnet/demo-wallet/index.js'
import { startPurchaseWorld, type PurchaseWorld } from '../../src/devnet/testing/index.js'
import { fmt, table } from '../lib/format.js'
import { load1 } from '../lib/machine.js'
import type { BenchContext, SectionResult } from './context.js'

const phases = [
  ['page', 'click → payment page loaded (charge creation, redirect, page with QR code)'],
  ['session', 'payment page → session in the wallet (GET /s/:id/api/session)'],
  ['submitted', 'session → ENQUEUING (wallet connects, fees and nonce, both signatures, SUBMIT_PAYMENT)'],
  ['validated', 'ENQUEUING → PENDING (queue, submitter validation)'],
  ['broadcast', 'PENDING → BROADCASTING (signed, recorded, sent)'],
  ['mined', 'BROADCASTING → SUCCESS (next block, receipt)'],
  ['indexed', 'SUCCESS → the explorer lists it (by order reference)'],
  ['settled', 'indexed → charge settled (reconciliation, confirmations)'],
  ['webhook', 'settled → store holds the verified charge.settled'],
  ['shown', 'webhook → order page shows "Paid" (SSE)'],
] as const
type Phase = (typeof phases)[number][0]

interface Run {
  chargeCreationMs: number
  durations: Record<Phase, number>
  total: number
}

export async function purchase(ctx: BenchContext): Promise<SectionResult> {
  const runs = ctx.quick ? 2 : 6
  const signingMs = await signingCost()
  const results: { confirmations: number; runs: Run[]; load: string }[] = []
  for (const confirmations of [0, 2]) {
    const loadBefore = load1()
    ctx.log(`  CONFIRMATION_BLOCKS=${confirmations}: starting the processor with 1-second blocks`)
    const world = await startPurchaseWorld({ blockTime: 1, confirmationBlocks: confirmations, pollIntervalMs: 200 })
    try {
      await buyOnce(world) // warm-up: browser caches, connections, the demo payer's top-up
      const measured: Run[] = []
      for (let i = 0; i < runs; i++) {
        measured.push(await buyOnce(world))
        ctx.log(`    run ${i + 1}: ${fmt(measured.at(-1)!.total)} ms`)
      }
      results.push({ confirmations, runs: measured, load: `${loadBefore} → ${load1()}` })
    } finally {
      await world.stop()
    }
  }

  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
  const column = (pick: (run: Run) => number) => results.map(({ runs: r }) => fmt(median(r.map(pick))))
  const rows = [
    ['**click → "Paid" on the order page**', ...results.map(({ runs: r }) => `**${fmt(median(r.map((run) => run.total)))}** (${fmt(Math.min(...r.map((run) => run.total)))}–${fmt(Math.max(...r.map((run) => run.total)))})`)],
    ['of which: charge creation (store → merchant API, mutual TLS; inside the first row below)', ...column((run) => run.chargeCreationMs)],
    ...phases.map(([phase, what]) => [what, ...column((run) => run.durations[phase])]),
    ['signing alone (permit + binding signature, local, mean of 20)', ...results.map(() => fmt(signingMs, 1))],
  ]
  const markdown = [
    `Run: anvil with 1-second blocks, the whole processor in one process (explorer, gateway + submitter, widget, data service, CA, checkout engine with webhook delivery, demo store) with npm start's polling (POLL_INTERVAL_MS=200), a headless Chromium clicking "Pay with stablecoin" and watching the order page; the demo wallet pays in-process as soon as the payment page has loaded; ${runs} runs per setting after one warm-up; medians in ms (total: median, min–max). Load ${results.map((r) => `${r.confirmations} confirmations: ${r.load}`).join('; ')}.`,
    '',
    table(['part', ...results.map((r) => `CONFIRMATION_BLOCKS=${r.confirmations} (ms)`)], rows),
    '',
    'Mining waits for the next 1-second block (0–1 s, ~0.5 s on average); with 2 confirmations, reconciliation waits for two more blocks after the settlement\'s.',
  ].join('\n')
  const headline = Object.fromEntries(
    results.map(({ confirmations, runs: r }) => [`Purchase click → "Paid" on the store page, CONFIRMATION_BLOCKS=${confirmations} (1 s blocks)`, `${fmt(median(r.map((run) => run.total)) / 1000, 2)} s median`]),
  )
  return { markdown, headline }
}

/** One purchase: buy in the store, pay the payment page's link with the demo wallet, wait for "Paid". */
async function buyOnce(world: PurchaseWorld): Promise<Run> {
  const page = await world.browser.newPage()
  const orderPage = await world.browser.newPage()
  try {
    await page.goto(world.store.url)
    const button = (await page.waitForSelector('button[aria-label^="Pay for Coffee"]'))!
    const at: Partial<Record<Phase | 'click', number>> = {}
    at.click = Date.now()
    await Promise.all([page.waitForNavigation(), button.click()])
    at.page = Date.now()
    const link = await page.$eval('#payment-link', (a) => a.getAttribute('href')!)
    const order = world.store.orders().find((o) => o.widgetUrl === page.url())!
    const shown = orderPage
      .goto(`${world.store.url}/orders/${order.id}`)
      .then(() => orderPage.waitForFunction(() => document.querySelector('#order-status')?.getAttribute('data-status') === 'paid', { timeout: 60_000, polling: 'mutation' }))
      .then(() => (at.shown = Date.now()))
    let orderReference: Hex | undefined
    const indexed = (async () => {
      while (!orderReference) await new Promise((resolve) => setTimeout(resolve, 5))
      while ((await world.explorer.get(`/events/order/${orderReference}`)).status !== 200) await new Promise((resolve) => setTimeout(resolve, 10))
      at.indexed = Date.now()
    })()
    const statusMoments: Record<string, Phase> = { ENQUEUING: 'submitted', PENDING: 'validated', BROADCASTING: 'broadcast', SUCCESS: 'mined' }
    const { final } = await payAsDemoPayer(link, {
      index: 0,
      rpcUrl: world.chain.rpcUrl,
      dataServiceUrl: world.dataService.url,
      onSession(session) {
        at.session = Date.now()
        orderReference = session.orderReference
      },
      onStatus: (push) => void (statusMoments[push.status] && (at[statusMoments[push.status]!] ??= Date.now())),
    })
    if (final.status !== 'SUCCESS') throw new Error(`the payment failed: ${final.failureCategory} ${final.failureReason}`)
    await Promise.all([indexed, shown])
    const { rows } = await world.db.pool.query<{ settled_at: Date }>('SELECT settled_at FROM charges WHERE id = $1', [order.chargeId])
    at.settled = rows[0]!.settled_at.getTime()
    at.webhook = world.store.orders().find((o) => o.id === order.id)!.paidAt!.getTime()
    let previous = at.click
    const durations = {} as Record<Phase, number>
    for (const [phase] of phases) {
      durations[phase] = at[phase]! - previous
      previous = at[phase]!
    }
    return { chargeCreationMs: order.chargeCreationMs, durations, total: at.shown! - at.click }
  } finally {
    await page.close()
    await orderPage.close()
  }
}

/** What signing a payment costs locally: the permit and the binding signature (two EIP-712 signatures). */
async function signingCost(): Promise<number> {
  const payer = privateKeyToAccount(deriveLocalKey('demo-wallet', 0))
  const address = `0x${'11'.repeat(20)}` as Hex
  const sign = () =>
    signPayment({
      payer,
      settlementContract: address,
      tokenDomain: { name: 'USD Coin', version: '1', chainId: 31337, verifyingContract: address },
      recipient: address,
      principal: 12_000_000n,
      fee: 2_500_000n,
      permitNonce: 0n,
      deadline: 2_000_000_000n,
      orderReference: `0x${'22'.repeat(16)}`,
      acquirerId: `0x${'00'.repeat(16)}`,
    })
  await sign()
  const started = performance.now()
  for (let i = 0; i < 20; i++) await sign()
  return (performance.now() - started) / 20
}
