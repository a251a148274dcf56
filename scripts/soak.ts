/**
 * `npm run soak -- --minutes N`: mixed load and faults against the full local stack for N minutes, then
 * the checks — the explorer holds exactly the chain's settlements, every subscriber saw each settlement
 * exactly once (net of REMOVED), no request got a 5xx, RSS stayed flat. Exits 1 when a check fails.
 * `--report <file>` writes the figures as Markdown (bench/RELIABILITY.md comes from a 10-minute run).
 * The pieces live in scripts/soak/.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import { join } from 'node:path'
import { describeMachine } from '../bench/lib/machine.js'
import { readDirectory } from '../src/chain/index.js'
import { createChainClient } from '../src/chain/index.js'
import { numberFlag } from '../src/platform/cli/index.js'
import { runCli } from '../src/platform/cli/index.js'
import type { TrafficProgress } from '../src/devnet/traffic/index.js'
import { runWalletTraffic } from '../src/devnet/traffic/index.js'
import { runChaos } from './soak/chaos.js'
import { junkOutcome, startJunkPermits } from './soak/junk-permits.js'
import { describeFlood, FLOOD_ADDRESS, startSocketFlood } from './soak/socket-flood.js'
import { startSlowWebhooks } from './soak/slow-webhooks.js'
import { createLogger } from '../src/platform/observability/index.js'
import { p99Between, startRestLoad } from './soak/rest-load.js'
import { rssOfPid } from './soak/managed-process.js'
import { RssSampler } from './soak/rss-sampler.js'
import { STUCK_REPLACED, startStack } from './soak/start-stack.js'
import { soakFilters, startSdkSubscriber, startSseSubscriber, type Subscriber } from './soak/subscribers.js'
import { drain, verifySoak } from './soak/verify-soak.js'
import { renderReport, type Check } from './soak/write-report.js'
import { startChargeMerchant } from './soak/charge-merchant.js'
import { startChargeLoad, verifyCharges } from './soak/charges.js'
import { describeRequestFlood, forkRequestFlood } from './soak/request-flood.js'

/** Resolves at `at` (ms since the epoch), or at once when `signal` aborts first. */
const sleepUntil = (at: number, signal: AbortSignal) => new Promise<void>((resolve) => {
  const timer = setTimeout(resolve, Math.max(0, at - Date.now()))
  signal.addEventListener('abort', () => (clearTimeout(timer), resolve()), { once: true })
})

runCli(
  {
    name: 'soak',
    usage: `usage: npm run soak -- [--minutes N] [--rate P] [--junk-rate J] [--rest-workers W] [--fault-every S]
       [--sybil-wallets W] [--flood-exports E] [--flood-queries Q] [--flood-streams S] [--flood-connections C] [--flood-rate M] [--flood-readers R] [--webhook-rate H] [--charge-workers K]
       [--report FILE] [--keep]

Starts the local stack on free ports (anvil with 1 s blocks, embedded PostgreSQL, data service, CA in
this process; explorer, gateway and submitter as child processes) and for N minutes (default 10) runs
demo payments through the gateway (P per second, default 3) beside a sybil flood of junk permits from
W throwaway wallets, 16 future nonces each (J per second, default 30; W default 1000; 0 for none), REST paging (W workers, default 3), hostile sockets from
${FLOOD_ADDRESS} (C connections each to the gateway and to the explorer, default 300, past the per-address
caps of 256; M junk messages a second to the gateway, default 400; R of the explorer ones subscribe from
the start and never read, default 32; 0 connections for none), a slow and a fast webhook receiver
(eleven slow ones: ten answering 2xx after 5 s, one past the timeout; H events a second each, default 2;
0 for none), K customers buying charges end to end (merchant API,
widget session, gateway; default 4, 0 for none) while the checkout engine's node hides every receipt for
4 blocks about every 20 s,
WebSocket (SDK) and SSE subscribers, with a fault every S seconds on average (default 12): kill -9 of the
explorer or of the submitter, an anvil reorg, or subscribers dropping their connections. Then it drains the traffic and checks the explorer and every subscriber against the
chain, the 5xx count and RSS. --report writes the results as Markdown; --keep keeps the work directory
(logs of each child) even when every check passes.`,
    options: {
      minutes: { type: 'string' },
      rate: { type: 'string' },
      'junk-rate': { type: 'string' },
      'sybil-wallets': { type: 'string' },
      'rest-workers': { type: 'string' },
      'fault-every': { type: 'string' },
      'flood-connections': { type: 'string' },
      'flood-rate': { type: 'string' },
      'flood-readers': { type: 'string' },
      'flood-exports': { type: 'string' },
      'flood-queries': { type: 'string' },
      'flood-streams': { type: 'string' },
      'webhook-rate': { type: 'string' },
      'charge-workers': { type: 'string' },
      report: { type: 'string' },
      keep: { type: 'boolean' },
    },
  },
  async ({ values }) => {
    const minutes = numberFlag(values.minutes, 'minutes', 10, 0.5, 24 * 60)
    const rate = numberFlag(values.rate, 'rate', 3, 0.1, 100)
    const junkRate = numberFlag(values['junk-rate'], 'junk-rate', 30, 0, 1000)
    const sybilWallets = numberFlag(values['sybil-wallets'], 'sybil-wallets', 1000, 1, 100_000)
    const restWorkers = numberFlag(values['rest-workers'], 'rest-workers', 3, 0, 64)
    const faultEvery = numberFlag(values['fault-every'], 'fault-every', 12, 1, 3600)
    const floodConnections = numberFlag(values['flood-connections'], 'flood-connections', 300, 0, 2000)
    const floodRate = numberFlag(values['flood-rate'], 'flood-rate', 400, 0, 10_000)
    const floodReaders = numberFlag(values['flood-readers'], 'flood-readers', 32, 0, 2000)
    const floodExports = numberFlag(values['flood-exports'], 'flood-exports', 200, 0, 2000)
    const floodQueries = numberFlag(values['flood-queries'], 'flood-queries', 1000, 0, 5000)
    const floodStreams = numberFlag(values['flood-streams'], 'flood-streams', 2000, 0, 8000)
    const webhookRate = numberFlag(values['webhook-rate'], 'webhook-rate', 2, 0, 100)
    const chargeWorkers = numberFlag(values['charge-workers'], 'charge-workers', 4, 0, 20)
    const command = `npx tsx scripts/soak.ts ${process.argv.slice(2).join(' ')}`.trim()
    const machine = describeMachine()
    mkdirSync('.data', { recursive: true })
    const dir = mkdtempSync(join(process.cwd(), '.data', 'soak-'))
    const log = (line: string) => console.log(`[soak ${new Date().toISOString().slice(11, 19)}] ${line}`)

    log(`starting the stack in ${dir}`)
    const stack = await startStack(dir)
    let passed = false
    try {
      const { deployment } = stack.devnet
      log(`explorer ${stack.explorerUrl}, gateway ${stack.gatewayWsUrl}, rpc ${deployment.rpcUrl}`)
      const startedAt = Date.now()
      /** The request flood's process, once it runs (sampled, not judged: it stands for clients elsewhere). */
      let floodPid: number | undefined
      const rss = new RssSampler({
        explorer: () => stack.explorer.rss(),
        submitter: () => stack.submitter.rss(),
        gateway: () => stack.gateway.rss(),
        anvil: () => (stack.devnet.anvil.process.pid === undefined ? undefined : rssOfPid(stack.devnet.anvil.process.pid)),
        'soak process (load, subscribers, data service, CA, checkout engine, widget)': () => process.memoryUsage().rss,
        'request flood (its own process, from a third of the way in)': () => (floodPid === undefined ? undefined : rssOfPid(floodPid)),
      }, ['anvil', 'request flood (its own process, from a third of the way in)'])
      rss.start(5_000)
      const loadAverages: number[] = []
      const loadTimer = setInterval(() => loadAverages.push(Math.round(loadavg()[0]! * 100) / 100), 10_000)

      const sdkErrors: Record<string, number> = {}
      const onSdkError = (error: Error) => {
        const code = (error as { code?: string }).code ?? error.name
        sdkErrors[code] = (sdkErrors[code] ?? 0) + 1
      }
      const subscribers: Subscriber[] = []
      const sse: ReturnType<typeof startSseSubscriber>[] = []
      for (const { name, filter } of soakFilters(deployment)) {
        subscribers.push(await startSdkSubscriber(stack.explorerUrl, name, filter, onSdkError))
        const s = startSseSubscriber(stack.explorerUrl, name, filter)
        sse.push(s)
        subscribers.push(s)
      }

      const stopLoad = new AbortController()
      const directory = await readDirectory({ publicClient: createChainClient({ rpcUrl: deployment.rpcUrl }), settlementContract: deployment.settlementContract, fromBlock: BigInt(deployment.startBlock) })
      let traffic: TrafficProgress = { sent: 0, settled: 0, failed: 0, elapsedSeconds: 0, rate: 0 }
      let loggedAt = 0
      const trafficDone = runWalletTraffic({
        deployment,
        directory,
        gatewayUrl: stack.gatewayWsUrl,
        rate,
        signal: stopLoad.signal,
        progressIntervalMs: 1_000,
        onProgress: (p) => {
          traffic = p
          if (Date.now() - loggedAt < 30_000) return
          loggedAt = Date.now()
          log(`payments sent ${p.sent}, settled ${p.settled}, failed ${p.failed}${p.lastError ? ` (last error: ${p.lastError.split('\n')[0]})` : ''}`)
        },
      })
      const junk = startJunkPermits({ deployment, directory, gatewayUrl: stack.gatewayWsUrl, wallets: sybilWallets, rate: junkRate, signal: stopLoad.signal })
      const rest = startRestLoad({ baseUrl: stack.explorerUrl, deployment, workers: restWorkers, pauseMs: 30, signal: stopLoad.signal })
      const flood = startSocketFlood({ gatewayWsUrl: stack.gatewayWsUrl, explorerUrl: stack.explorerUrl, connections: floodConnections, messagesPerSecond: floodRate, readers: floodReaders, signal: stopLoad.signal })
      const webhooks = webhookRate > 0 ? await startSlowWebhooks({ db: stack.db, log: createLogger('warn', { service: 'soak-webhooks' }), rate: webhookRate, slowAnswers: [15_000, ...Array<number>(10).fill(5_000)], signal: stopLoad.signal }) : undefined
      const chargeMerchant = await startChargeMerchant(stack)
      const charges = startChargeLoad({ merchant: chargeMerchant.client, deployment, rpcUrl: deployment.rpcUrl, dataServiceUrl: stack.dataService.url, workers: chargeWorkers, pauseMs: 2_000, signal: stopLoad.signal })
      const lagging = stack.laggingNode.run(stopLoad.signal)
      // The request flood starts a third of the way in: the REST workers' p99 before it is the quiet one.
      const watched = await chargeMerchant.client.createCharge({ amount: '1000000', token: deployment.tokens[0]!.address, beneficiary: deployment.recipients[0]!, currency: deployment.tokens[0]!.symbol, orderId: `soak-watched-${Date.now()}` })
      const floodStartsAt = startedAt + (minutes * 60_000) / 3
      const requestFlood = sleepUntil(floodStartsAt, stopLoad.signal).then(() =>
        forkRequestFlood({ explorerUrl: stack.explorerUrl, widgetUrl: stack.widget.url, chargeId: watched.id, deployment, exports: floodExports, queries: floodQueries, streams: floodStreams }),
      ).then((flood) => ((floodPid = flood.pid), flood))
      const stopChaos = new AbortController()
      const chaos = runChaos({ stack, subscribers, signal: stopChaos.signal, startedAt, meanGapMs: faultEvery * 1000, log })

      await new Promise((resolve) => setTimeout(resolve, minutes * 60_000))
      log('load phase over: stopping the faults, then the traffic')
      stopChaos.abort()
      const faults = await chaos
      // Payments in flight when the wallets disconnect count as failed in the traffic's tally, though most
      // are mined: the tally at the stop tells them apart.
      const trafficAtStop = traffic
      stopLoad.abort()
      traffic = await trafficDone
      await junk.done
      await rest.done
      await flood.done
      await charges.done
      await lagging
      const floodEndedAt = Date.now()
      const requests = { stats: await (await requestFlood).stop() }
      const webhookStats = await webhooks?.finish()
      const loadSeconds = (Date.now() - startedAt) / 1000
      const openSubmissions = await drain(stack)
      const verification = await verifySoak(stack, subscribers, openSubmissions)
      const junkRows = await junkOutcome(stack.db, junk.owners)
      const chargeVerdict = await verifyCharges(stack.db, charges.paid, 120_000)
      await chargeMerchant.stop()
      rss.stop()
      clearInterval(loadTimer)
      const checkSeconds = (Date.now() - startedAt) / 1000 - loadSeconds
      await Promise.all(subscribers.map((s) => s.stop()))

      const fivexx = [rest.stats.statuses, ...sse.map((s) => s.sse.stats.statuses)].reduce((n, statuses) => n + Object.entries(statuses).filter(([status]) => Number(status) >= 500).reduce((m, [, c]) => m + c, 0), 0)
      const badSubscribers = verification.subscribers.filter((s) => s.missing.length + s.extra.length + s.duplicates.length > 0)
      const rssVerdicts = rss.verdicts()
      const unexpectedSdkErrors = Object.entries(sdkErrors).filter(([code]) => code !== 'CONNECT_FAILED')
      const checks: Check[] = [
        {
          name: 'the explorer holds exactly the chain\'s settlements',
          pass: verification.explorerMatches && verification.statsTotal === verification.onChain,
          detail: `${verification.indexed} indexed, ${verification.onChain} on chain, field for field ${verification.explorerMatches ? 'equal' : 'different'}; missing ${verification.explorerMissing.length}, extra ${verification.explorerExtra.length}; /stats ${verification.statsTotal}`,
        },
        {
          name: 'every subscriber saw each settlement exactly once (net of REMOVED)',
          pass: badSubscribers.length === 0,
          detail: badSubscribers.length === 0 ? `${verification.subscribers.length} subscribers (4 WebSocket via the SDK, 4 SSE)` : badSubscribers.map((s) => `${s.name}: missing ${s.missing.slice(0, 3).join(' ')}…(${s.missing.length}) extra ${s.extra.slice(0, 3).join(' ')}(${s.extra.length}) dup ${s.duplicates.length}`).join('; '),
        },
        { name: 'no request got a 5xx', pass: fivexx === 0, detail: `${fivexx} answers ≥ 500 over ${rest.stats.requests} REST requests and ${sse.reduce((n, s) => n + s.sse.stats.connects, 0)} SSE connects` },
        {
          name: 'RSS stayed flat',
          pass: rssVerdicts.every((x) => x.flat || !x.judged),
          detail: rssVerdicts.map((x) => `${x.name.split(' ')[0]} ${x.earlyMedianMb}→${x.lateMedianMb} MB${x.judged ? '' : ' (not judged)'}`).join(', '),
        },
        {
          name: 'bad requests are 400; pages never go back on themselves',
          pass: rest.stats.badRequestsNot400 === 0 && rest.stats.orderViolations === 0,
          detail: `${rest.stats.badRequestsNot400} bad requests not answered 400, ${rest.stats.orderViolations} order violations in ${rest.stats.pages} pages`,
        },
        { name: 'the SDK reported nothing but failed reconnects', pass: unexpectedSdkErrors.length === 0, detail: Object.entries(sdkErrors).map(([c, n]) => `${c}: ${n}`).join(', ') || 'nothing' },
        { name: 'the payment queue drained', pass: openSubmissions === 0, detail: `${openSubmissions} submissions still open after the drain` },
        {
          name: 'a sybil flood of junk permits was bounded at the gateway and failed or evicted, none mined',
          pass: junkRate === 0 || (junkRows.open === 0 && junkRows.succeeded === 0 && (junk.stats.answers.NONCE_MISMATCH ?? 0) > 0),
          detail: `${junk.stats.sent} sent (${Object.entries(junk.stats.answers).sort().map(([a, n]) => `${a}: ${n}`).join(', ')}); ${junkRows.queued} queued: ${Object.entries(junkRows.failed).sort().map(([c, n]) => `FAILURE ${c}: ${n}`).join(', ') || 'none failed'}, ${junkRows.succeeded} SUCCESS, ${junkRows.open} open`,
        },
      ]
      checks.push(
        {
          name: `hostile sockets from ${FLOOD_ADDRESS} met the per-address limits, and none was answered 5xx`,
          pass:
            floodConnections === 0 ||
            ((flood.gateway.refused['429'] ?? 0) > 0 && (flood.explorer.refused['429'] ?? 0) > 0 && (floodRate === 0 || (flood.gateway.answers.RATE_LIMIT_EXCEEDED ?? 0) > 0) &&
              [flood.gateway, flood.explorer].every((f) => Object.keys(f.refused).every((status) => Number(status) < 500))),
          detail: `gateway: ${describeFlood(flood.gateway)} · explorer: ${describeFlood(flood.explorer)}`,
        },
        {
          name: 'eleven slow webhook receivers held no more than their share: the fast merchant got each event once, p95 under 2 s',
          pass: !webhookStats || (webhookStats.fastMissing === 0 && webhookStats.fastDuplicates === 0 && webhookStats.fastLatencyMs.p95 < 2_000 && webhookStats.slowMaxInFlight <= webhookStats.perMerchantConcurrency),
          detail: webhookStats
            ? `fast: ${webhookStats.fastDelivered}/${webhookStats.fastEnqueued} delivered, ${webhookStats.fastDuplicates} twice, enqueue→request p50 ${webhookStats.fastLatencyMs.p50} ms, p95 ${webhookStats.fastLatencyMs.p95} ms, max ${webhookStats.fastLatencyMs.max} ms; ${webhookStats.slowMerchants} slow (ten answering 2xx after 5 s, one after 15 s past the 10 s timeout): ${webhookStats.slowEnqueued} events, ${webhookStats.slowRequests} requests, at most ${webhookStats.slowMaxInFlight} at once (limit ${webhookStats.perMerchantConcurrency})`
            : 'not run',
        },
      )
      checks.push({
        name: "every paid charge settled exactly once and none expired, the engine's node hiding receipts meanwhile",
        pass: chargeWorkers === 0 || (chargeVerdict.paid > 0 && chargeVerdict.unsettled.length === 0 && chargeVerdict.miscounted.length === 0 && chargeVerdict.expired === 0),
        detail: `${charges.stats.created} charges, ${chargeVerdict.paid} paid (SUCCESS), ${chargeVerdict.settled} settled, unsettled ${chargeVerdict.unsettled.slice(0, 3).join(', ') || 'none'}, not exactly one live payment ${chargeVerdict.miscounted.length}, expired ${chargeVerdict.expired}; events ${Object.entries(chargeVerdict.events).map(([t, n]) => `${t}: ${n}`).join(', ')}; node: ${stack.laggingNode.stats.episodes} episodes, ${stack.laggingNode.stats.hidden} receipts hidden; purchases failed ${Object.entries(charges.stats.failed).map(([c, n]) => `${c}: ${n}`).join(', ') || '0'}${charges.stats.lastError ? ` (last: ${charges.stats.lastError})` : ''}`,
      })
      const quietP99 = p99Between(rest.stats, startedAt, floodStartsAt)
      const floodP99 = p99Between(rest.stats, floodStartsAt, floodEndedAt)
      const floodFiveXx = Object.entries(requests.stats.statuses).filter(([key]) => Number(key.split(' ')[1]) >= 500 && !key.endsWith(' 503')).reduce((n, [, c]) => n + c, 0)
      checks.push({
        name: `slow exports, multi-filter queries and widget streams from ${FLOOD_ADDRESS} met caps (429/503 with Retry-After, no other 5xx), and the REST workers' p99 stayed within 3x`,
        pass: floodExports + floodQueries + floodStreams === 0 || (floodFiveXx === 0 && requests.stats.refusalsWithoutRetryAfter === 0 && floodP99 <= 3 * quietP99),
        detail: `${floodExports} exports, ${floodQueries} queries, ${floodStreams} streams at once: ${describeRequestFlood(requests.stats)}; REST p99 before ${quietP99} ms, during ${floodP99} ms`,
      })
      passed = checks.every((c) => c.pass)
      const result = { command, machine, minutes, loadSeconds, checkSeconds, loadAverages, rest: rest.stats, sse: sse.map((s) => ({ name: s.name, stats: s.sse.stats })), sdkErrors, traffic, trafficAtStop, stuckReplaced: stack.submitter.counts[STUCK_REPLACED] ?? 0, junk: { stats: junk.stats, queued: junkRows.queued, failed: junkRows.failed }, flood, webhooks: webhookStats, faults, rss, verification, checks }
      for (const c of checks) log(`${c.pass ? 'pass' : 'FAIL'}: ${c.name} — ${c.detail}`)
      if (values.report) {
        writeFileSync(values.report, renderReport(result))
        log(`wrote ${values.report}`)
      } else console.log(renderReport(result))
    } finally {
      await stack.stop()
      if (passed && !values.keep) rmSync(dir, { recursive: true, force: true })
      else log(`logs kept in ${dir}`)
    }
    process.exit(passed ? 0 : 1)
  },
)
