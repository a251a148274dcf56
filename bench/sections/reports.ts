/**
 * The merchant's CSV report (issue 23) streamed in constant memory: charges stored directly in PostgreSQL
 * (one INSERT … SELECT, one second apart), then `GET /api/v1/reports/charges.csv` over mutual TLS from the
 * real checkout engine (src/devnet/testing/checkout-fixture.ts: anvil, embedded PostgreSQL, explorer, CA), read
 * at full speed, and once more with the client pausing 3 s after its first megabyte. The engine runs in this
 * process, so the heap measured after a forced GC at every megabyte received (run with --expose-gc) is the
 * server's buffering plus the client's (which only counts bytes): constant memory shows as the same peak at
 * every size. While the client pauses, the pages the server reads are counted (the pool's queries of the
 * charges listing, counted by wrapping the pool's query method in this process): after the socket buffers
 * fill, none should be.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import { Agent, request } from 'undici'
import { startCheckoutFixture, type CheckoutFixture, type TestMerchant } from '../../src/devnet/testing/index.js'
import { fmt, table } from '../lib/format.js'
import { load1 } from '../lib/machine.js'
import type { BenchContext, SectionResult } from './context.js'

interface Run {
  rows: number
  bytes: number
  seconds: number
  firstByteMs: number
  /** Peak retained heap (after GC, at each megabyte) above the heap just before the request, in MB. */
  peakHeapMb: number
  /** Heap retained over the pause, in MB, and the report pages the server read during it (paused runs). */
  pause?: { growthMb: number; pagesRead: number }
}

const MB = 1024 * 1024

async function store(f: CheckoutFixture, merchant: TestMerchant, count: number): Promise<void> {
  await f.db.pool.query(`DELETE FROM charges WHERE merchant_id = $1`, [merchant.id])
  const token = f.chain.deployment.tokens[0]!
  await f.db.pool.query(
    `INSERT INTO charges (id, merchant_id, status, amount, token, currency, beneficiary, order_id, order_reference, acquirer_id, fees, total_to_pay, deadline, created_at)
     SELECT 'ch_' || lpad(to_hex(i), 24, '0'), $1, 'awaiting-payment', 1000000 + i, $2, $3, $4, 'bench-' || i, '0x' || lpad(to_hex(i), 32, '0'),
       '0x' || repeat('0', 32), 10, 1000010 + i, now() + interval '1 day', timestamptz '2026-01-01' + i * interval '1 second'
     FROM generate_series(1, $5::int) AS i`,
    [merchant.id, token.address.toLowerCase(), token.symbol, f.chain.deployment.recipients[0]!.toLowerCase(), count],
  )
}

const retainedHeap = () => {
  global.gc?.()
  return process.memoryUsage().heapUsed
}

/** Counts the charge-listing queries (the report's pages) the engine sends through the shared pool. */
function countPages(f: CheckoutFixture): () => number {
  let pages = 0
  const pool = f.db.pool as unknown as { query: (...args: unknown[]) => unknown }
  const query = pool.query.bind(pool)
  pool.query = (...args: unknown[]) => {
    if (typeof args[0] === 'string' && args[0].includes('FROM charges') && args[0].includes('ORDER BY charges.seq DESC')) pages++
    return query(...args)
  }
  return () => pages
}

async function stream(f: CheckoutFixture, agent: Agent, pages: () => number, measure: { heap?: boolean; pauseAfterBytes?: number } = {}): Promise<Run> {
  const { pauseAfterBytes } = measure
  const base = retainedHeap()
  let peak = base
  const started = performance.now()
  const answer = await request(`${f.checkout.url}/api/v1/reports/charges.csv`, { dispatcher: agent })
  if (answer.statusCode !== 200) throw new Error(`charges.csv answered ${answer.statusCode}: ${await answer.body.text()}`)
  let firstByteMs = 0
  let bytes = 0
  let rows = 0
  let nextSample = MB
  let pause: Run['pause']
  for await (const chunk of answer.body as AsyncIterable<Buffer>) {
    if (bytes === 0) firstByteMs = performance.now() - started
    bytes += chunk.length
    for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) rows++
    if (measure.heap && bytes >= nextSample) {
      nextSample += MB
      peak = Math.max(peak, retainedHeap())
    }
    if (pauseAfterBytes !== undefined && pause === undefined && bytes >= pauseAfterBytes) {
      // Let the server fill what it may (the sockets' kernel buffers, megabytes on loopback), then watch a quiet stretch.
      await sleep(5_000)
      const [heap, read] = [retainedHeap(), pages()]
      await sleep(3_000)
      pause = { growthMb: (retainedHeap() - heap) / MB, pagesRead: pages() - read }
    }
  }
  return { rows: rows - 1, bytes, seconds: (performance.now() - started) / 1000, firstByteMs, peakHeapMb: (peak - base) / MB, pause }
}

export async function reports(ctx: BenchContext): Promise<SectionResult> {
  const sizes = ctx.quick ? [5_000, 20_000] : [10_000, 60_000]
  const loadBefore = load1()
  const f = await startCheckoutFixture()
  const merchant = await f.createMerchant()
  const pages = countPages(f)
  const agent = new Agent({ connect: { ca: f.checkout.caCertificatePem, servername: 'localhost', ...merchant.credentials } })
  const runs: { size: number; run: Run; paused: Run }[] = []
  try {
    for (const size of sizes) {
      ctx.log(`  ${fmt(size)} charges: storing`)
      await store(f, merchant, size)
      if (size === sizes[0]) await stream(f, agent, pages) // warm-up
      const run = await stream(f, agent, pages)
      const paused = await stream(f, agent, pages, { heap: true, pauseAfterBytes: MB })
      if (run.rows !== size || paused.rows !== size) throw new Error(`charges.csv had ${run.rows} / ${paused.rows} rows, not ${size}`)
      ctx.log(`    ${fmt(run.rows / run.seconds)} rows/s, peak heap +${fmt(paused.peakHeapMb, 1)} MB; paused 3 s: heap +${fmt(paused.pause!.growthMb, 2)} MB, ${paused.pause!.pagesRead} pages read`)
      runs.push({ size, run, paused })
    }
  } finally {
    await agent.close()
    await f.stop()
  }
  const largest = runs.at(-1)!
  const markdown = [
    `Charges stored directly (one second apart), then \`GET /api/v1/reports/charges.csv\` over mutual TLS from the checkout engine in this process (500-row keyset pages pulled as the client reads); throughput from a plain read; retained heap from a second read, after a forced GC at every megabyte received, that also pauses; while the client pauses, the 500-row pages the server reads (its pool's listing queries, counted). Load ${loadBefore} → ${load1()}.`,
    '',
    table(
      ['charges', 'CSV', 'time', 'rows/s', 'first byte', 'peak retained heap above start', 'client paused after its first MB: heap growth and pages the server read in the 3 s after the first 5 s'],
      runs.map(({ size, run, paused }) => [fmt(size), `${fmt(run.bytes / MB, 1)} MB`, `${fmt(run.seconds, 2)} s`, fmt(run.rows / run.seconds), `${fmt(run.firstByteMs)} ms`, `${fmt(paused.peakHeapMb, 1)} MB`, `${fmt(paused.pause!.growthMb, 2)} MB, ${fmt(paused.pause!.pagesRead)} of ${fmt(Math.ceil(size / 500))}`]),
    ),
  ].join('\n')
  return {
    markdown,
    headline: {
      'charges.csv': `${fmt(largest.size)} rows (${fmt(largest.run.bytes / MB, 1)} MB) at ${fmt(largest.run.rows / largest.run.seconds)} rows/s, peak retained heap +${fmt(largest.paused.peakHeapMb, 1)} MB (smallest size: +${fmt(runs[0]!.paused.peakHeapMb, 1)} MB)`,
    },
  }
}
