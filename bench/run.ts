/**
 * `npm run bench` — the benchmark suite (never part of `npm test`). Sections: ingest, query latency,
 * HTTP throughput (with the QUERY_WORKERS comparison), fan-out, footprint and the wallet gateway, each reporting the
 * DESIGN.md target beside its figure, ratios measured in the same run.
 *
 *   npm run bench                  full run: stores of 1M and 10M settlements, writes bench/RESULTS.md
 *   npm run bench -- --quick       under two minutes: a 30k store, short runs, writes .data/bench/RESULTS-quick.md
 *   npm run bench -- --only=http,footprint     a subset of sections
 *   npm run bench -- --sizes=1000000           other store sizes (query and footprint run at each, HTTP at the first)
 *   npm run bench -- --append                  add this run's report to the end of the output file
 *   npm run bench -- --only=peers              Ponder beside the explorer on the same data (installs Ponder into bench/peers/ponder on first use)
 *   npm run bench -- --only=peers --peer-settlements=200000    the peers section on more settlements (default 100k)
 *   npm run bench -- --only=ingest --ingest-settlements=10000000    the backfill on more settlements (default 1M)
 *   npm run bench -- --only=envio              Envio HyperIndex beside the explorer on 20k settlements (installs its CLI into bench/peers/envio/cli on first use)
 *   npm run bench -- --only=replica            an empty explorer catching up with the largest chain, live, then its restart
 *   npm run bench -- --only=snapshot           a snapshot of the largest store beside its loaded explorer, then a replica from it
 *   npm run bench -- --only=fleet             two replicas from a snapshot behind nginx (deploy/nginx): flash crowds, staleness, live feeds, compression
 *   npm run bench -- --only=idle               as many idle subscribers as the open-file limit allows: memory each, a block's delivery to all
 *
 * Generated stores are cached under .data/bench/ by size and seed; delete the folder to rebuild.
 */
import { execFileSync } from 'node:child_process'
import { appendFileSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { BENCH_DIR, layoutFingerprint } from './data/bench-store.js'
import { DEFAULT_SHAPE, SyntheticChain } from './data/synthetic-chain.js'
import { fmt } from './lib/format.js'
import { describeMachine, load1 } from './lib/machine.js'
import type { BenchContext, SectionResult } from './sections/context.js'
import { fanout } from './sections/fanout.js'
import { idleSubscribers } from './sections/idle-subscribers.js'
import { footprint } from './sections/footprint.js'
import { gateway } from './sections/gateway.js'
import { httpThroughput } from './sections/http-throughput.js'
import { ingest } from './sections/ingest.js'
import { purchase } from './sections/purchase.js'
import { queryLatency } from './sections/query-latency.js'
import { amountRanges } from './sections/amount-ranges.js'
import { peers } from './sections/peers.js'
import { peersEnvio } from './sections/peers-envio.js'
import { statsLatency } from './sections/stats-latency.js'
import { reports } from './sections/reports.js'
import { replica } from './sections/replica.js'
import { snapshot } from './sections/snapshot.js'
import { fleet } from './sections/fleet.js'

const SECTIONS: Record<string, { title: string; run: (ctx: BenchContext) => Promise<SectionResult> }> = {
  ingest: { title: 'Ingest', run: ingest },
  query: { title: 'Query latency (tinybench)', run: queryLatency },
  http: { title: 'HTTP throughput and latency', run: httpThroughput },
  fanout: { title: 'WebSocket fan-out', run: fanout },
  idle: { title: 'Idle WebSocket subscribers', run: idleSubscribers },
  footprint: { title: 'Footprint and restart', run: footprint },
  gateway: { title: 'Wallet gateway and submitter', run: gateway },
  purchase: { title: 'Purchase end to end (store → paid)', run: purchase },
  amounts: { title: 'Amount ranges and exports', run: amountRanges },
  peers: { title: 'Side by side with Ponder', run: peers },
  envio: { title: 'Envio HyperIndex', run: peersEnvio },
  stats: { title: 'Filtered statistics and time series', run: statsLatency },
  reports: { title: 'Merchant CSV reports', run: reports },
  replica: { title: 'A replica from nothing, and its restart', run: replica },
  snapshot: { title: 'A replica from a snapshot', run: snapshot },
  fleet: { title: 'A fleet behind a caching proxy (nginx)', run: fleet },
}

const { values } = parseArgs({
  options: {
    quick: { type: 'boolean', default: false },
    only: { type: 'string' },
    seed: { type: 'string', default: '1' },
    out: { type: 'string' },
    sizes: { type: 'string' },
    append: { type: 'boolean', default: false },
    'peer-settlements': { type: 'string' },
    'ingest-settlements': { type: 'string' },
  },
})
const quick = values.quick
const chosen = values.only ? values.only.split(',') : Object.keys(SECTIONS)
for (const name of chosen) if (!SECTIONS[name]) throw new Error(`unknown section ${name}; known: ${Object.keys(SECTIONS).join(', ')}`)
const out = values.out ?? (quick ? `${BENCH_DIR}/RESULTS-quick.md` : 'bench/RESULTS.md')

const profileDir = `${BENCH_DIR}/profiles`
rmSync(profileDir, { recursive: true, force: true })
mkdirSync(profileDir, { recursive: true })
const started = performance.now()
const ctx: BenchContext = {
  quick,
  chain: new SyntheticChain({ ...DEFAULT_SHAPE, seed: Number(values.seed) }),
  sizes: values.sizes ? values.sizes.split(',').map(Number) : quick ? [30_000] : [1_000_000, 10_000_000],
  profileDir,
  peerSettlements: values['peer-settlements'] ? Number(values['peer-settlements']) : undefined,
  ingestSettlements: values['ingest-settlements'] ? Number(values['ingest-settlements']) : undefined,
  log: (line) => console.log(`[bench ${((performance.now() - started) / 1000).toFixed(0).padStart(4)} s] ${line}`),
}

const machine = describeMachine()
const command = `npm run bench${process.argv.length > 2 ? ` -- ${process.argv.slice(2).join(' ')}` : ''}`
ctx.log(`${command} on ${machine.nproc} cores, ${machine.memoryGb} GB, load ${load1()}`)

// Other work may change the tree while the suite runs; children load the code on disk, this process
// keeps what it loaded. A store layout that changes mid-run would mix layouts, so each section checks.
const layout = await layoutFingerprint(ctx.chain)
const layoutOnDisk = () =>
  execFileSync(process.execPath, ['--import', 'tsx', 'bench/data/layout-process.ts', String(ctx.chain.shape.seed)], { encoding: 'utf8' }).trim()

const results: { title: string; result: SectionResult }[] = []
let failed = 0
for (const name of chosen) {
  const section = SECTIONS[name]!
  ctx.log(`— ${section.title}`)
  // A section that fails is reported as such and the run goes on: a full run takes over an hour,
  // and the report is rewritten after every section, so nothing measured before a failure is lost.
  const result = await section.run(ctx).catch((error: unknown): SectionResult => {
    failed++
    const why = error instanceof Error ? (error.stack ?? error.message) : String(error)
    ctx.log(`  section ${name} failed: ${why}`)
    return { markdown: `**This section failed** and measured nothing:\n\n\`\`\`\n${why}\n\`\`\``, headline: { [`section ${name}`]: '**failed** (see its section)' } }
  })
  results.push({ title: section.title, result })
  for (const [what, figure] of Object.entries(result.headline)) ctx.log(`  ${what}: ${figure}`)
  if (!quick && layoutOnDisk() !== layout) throw new Error('the store layout in src/explorer/store changed during the run; figures would mix layouts: run again')
  writeReport(results.length < chosen.length)
}

function writeReport(partial: boolean): void {
  const minutes = (performance.now() - started) / 60_000
  const report = [
    `# Benchmark results${quick ? ' (quick run)' : ''}${partial ? ` (in progress: ${results.length} of ${chosen.length} sections)` : ''}`,
    '',
    `- Date: ${machine.date}`,
    `- Command: \`${command}\` at commit ${machine.commit}${machine.uncommitted > 0 ? ` with ${machine.uncommitted} uncommitted changed files in src/ (other engineers' work in progress)` : ''}; store layout ${layout}`,
    `- Machine: ${machine.nproc} cores (${machine.cpu}), ${machine.memoryGb} GB memory, Node ${machine.node}`,
    `- Run time: ${fmt(minutes, 1)} min; 1-minute load average at the end: ${load1()} (other engineers share this machine; each section notes the load before → after it)`,
    `- Data: synthetic chain seed ${ctx.chain.shape.seed}: ${ctx.chain.shape.tokens} tokens, ${fmt(ctx.chain.shape.payers)} payers, ${fmt(ctx.chain.shape.recipients)} recipients, ` +
      `${ctx.chain.shape.acquirers} acquirers on ${ctx.chain.shape.acquirerShare * 100}% of settlements, 0–${ctx.chain.shape.maxPerBlock} settlements per block, written through \`commitBatch\``,
    '',
    '## Summary (targets from DESIGN.md)',
    '',
    ...(quick ? ['Quick run: a smoke test of the whole suite on a small store with sub-second load runs; its figures and verdicts are not measurements (see bench/RESULTS.md for a full run).', ''] : []),
    ...results.flatMap(({ result }) => Object.entries(result.headline).map(([what, figure]) => `- ${what}: ${figure}`)),
    '',
    ...results.flatMap(({ title, result }) => [`## ${title}`, '', result.markdown, '']),
  ].join('\n')
  if (values.append) {
    // Appended once, complete: an in-progress copy would be appended again by every section.
    if (!partial) appendFileSync(out, `\n${report.replace(/^# /, '# Appended: ')}`)
  } else writeFileSync(out, report)
}

const minutes = (performance.now() - started) / 60_000
ctx.log(`wrote ${out} (${fmt(minutes, 1)} min${failed > 0 ? `; ${failed} section(s) failed` : ''})`)
if (failed > 0) process.exitCode = 1
