/**
 * The soak's results as Markdown (bench/RELIABILITY.md): what ran, on what, the checks, and the counts
 * behind them — requests, live messages, faults, payments, RSS over time.
 */
import type { Machine } from '../../bench/lib/machine.js'
import type { TrafficProgress } from '../../src/devnet/traffic/index.js'
import type { FaultRecord } from './chaos.js'
import type { JunkPermitStats } from './junk-permits.js'
import type { SlowWebhookStats } from './slow-webhooks.js'
import { describeFlood, FLOOD_ADDRESS, type FloodStats } from './socket-flood.js'
import type { RestStats } from './rest-load.js'
import type { RssSampler } from './rss-sampler.js'
import type { SseSubscriberStats } from './sse-subscriber.js'
import type { Verification } from './verify-soak.js'

export interface Check {
  name: string
  pass: boolean
  detail: string
}

export interface SoakResult {
  command: string
  machine: Machine
  minutes: number
  /** Wall-clock seconds of load and faults, then of the drain and checks. */
  loadSeconds: number
  checkSeconds: number
  loadAverages: number[]
  rest: RestStats
  sse: { name: string; stats: SseSubscriberStats }[]
  sdkErrors: Record<string, number>
  traffic: TrafficProgress
  /** The traffic's tally just before it was stopped. */
  trafficAtStop: TrafficProgress
  /** Transactions the submitter replaced after they sat unmined past its stuck timeout. */
  stuckReplaced: number
  /** The junk permit flood: the gateway's answers, and what became of the rows it queued. */
  junk: { stats: JunkPermitStats; queued: number; failed: Record<string, number> }
  /** Hostile sockets from FLOOD_ADDRESS: what the gateway and the explorer let through and refused. */
  flood: { gateway: FloodStats; explorer: FloodStats }
  /** The slow and the fast webhook receiver (undefined when not run). */
  webhooks: SlowWebhookStats | undefined
  faults: FaultRecord[]
  rss: RssSampler
  verification: Verification
  checks: Check[]
}

const count = (faults: FaultRecord[], kind: FaultRecord['kind']) => faults.filter((f) => f.kind === kind && !f.skipped).length
const sum = (record: Record<string, number>, keep: (key: string) => boolean = () => true) => Object.entries(record).reduce((n, [k, v]) => (keep(k) ? n + v : n), 0)
const is5xx = (status: string) => Number(status) >= 500

export function renderReport(r: SoakResult): string {
  const m = r.machine
  const v = r.verification
  const reorgs = r.faults.filter((f) => f.reorg)
  const outages = r.faults.filter((f) => f.outageMs !== undefined)
  const restTotal = r.rest.requests
  const lines = [
    '# Reliability soak',
    '',
    `${r.minutes}-minute soak of the full local stack, run ${m.date.slice(0, 16).replace('T', ' ')} UTC with`,
    '',
    '```',
    r.command,
    '```',
    '',
    `Machine: ${m.nproc} cores (${m.cpu}), ${m.memoryGb} GB memory, Node ${m.node}, commit ${m.commit}${m.uncommitted > 0 ? ` (+${m.uncommitted} uncommitted files under src/)` : ''}. ` +
      `1-minute load average during the run: ${Math.min(...r.loadAverages)}–${Math.max(...r.loadAverages)} (the machine is shared with other work).`,
    '',
    'What runs (`scripts/soak.ts`, composed as `npm start` composes the stack): anvil with 1 s blocks, an embedded',
    'PostgreSQL, the data service and the certificate authority in the soak process; the explorer',
    '(CONFIRMATION_BLOCKS 0), the wallet gateway (SUBMITTER=off) and the broadcast submitter as child processes.',
    'Load: demo payments through the gateway (`runWalletTraffic`, 20 wallets), REST workers paging `/events` with',
    'random filters, orders, sizes and cursors (plus lookups, `/stats` and bad requests that must be 400),',
    'WebSocket subscribers through the SDK and SSE subscribers with `Last-Event-ID` resume, each set filtered',
    'four ways (all, a recipient, a token, an acquirer) and started from the first chain position. Faults, one',
    'at a time: `kill -9` of the explorer (restarted on the same data directory) and of the submitter, reorgs',
    '(`anvil_reorg`, depth 1–3, the transactions taken back either mined again later in the new branch or sent',
    'back to the pool), and subscribers dropping their own connections. Beside the payments, a sybil flood:',
    '1,000 throwaway wallets (no funds), 32 connected at a time, each sending permit nonces 0 to 15 and leaving,',
    'round after round: the gateway must keep their future submissions within their own budgets',
    '(GATEWAY_MAX_FUTURE_PER_OWNER, GATEWAY_MAX_FUTURE_TOTAL, evicting the oldest) and the submitter',
    '(SUBMITTER_MAX_DEFERRALS 8) fail what it took, while the real payments keep flowing. The checkout engine',
    '(CONFIRMATION_BLOCKS 2) and the widget run in the soak process; 4 customers buy charges end to end (merchant',
    "API over mutual TLS, the widget's payment session, the gateway) while the engine's node, behind a relay,",
    'answers every receipt request "none" for 4 blocks about every 20 s: no paid charge may be reverted or expire.',
    `From a third of the way in, a request flood from ${FLOOD_ADDRESS} in a process of its own: 200 exports reading a`,
    'chunk a second, 1,000 multi-filter `/events` loops and 2,000 widget live streams on one charge, each reopened a',
    "second after it ends: caps must answer 429/503 with Retry-After, and the REST workers' p99 is compared before and during.",
    `Hostile sockets come from ${FLOOD_ADDRESS} (the client binds it; Linux routes all of 127/8 to loopback), so the`,
    'per-address limits they meet are not those of the real wallets and subscribers on 127.0.0.1: a flood of',
    'gateway connections past GATEWAY_MAX_CONNECTIONS_PER_IP (256), sending unsigned junk together faster than',
    'GATEWAY_IP_MESSAGES_PER_SECOND (200); explorer WebSocket connections past WS_MAX_CONNECTIONS_PER_IP (256),',
    'some of them subscribing to every settlement from the start and then never reading (socket paused, given up',
    'after 60 s and replaced). Closed or refused connections are opened again after 1 s. A webhook delivery worker',
    'in the soak process serves twelve merchants whose events are written to the outbox as the checkout engine',
    'writes them: ten endpoints answer 2xx after 5 s, one after 15 s (past WEBHOOK_TIMEOUT_MS, 10 s), one at once.',
    '',
    '## Checks',
    '',
    '| check | result | detail |',
    '|---|---|---|',
    ...r.checks.map((c) => `| ${c.name} | ${c.pass ? 'pass' : '**FAIL**'} | ${c.detail} |`),
    '',
    '## Counts',
    '',
    '| what | count |',
    '|---|---|',
    `| settlements on chain at the end (\`eth_getLogs\` over the whole range) | ${v.onChain} |`,
    `| settlements the explorer holds (paged through \`/events\`) / \`/stats\` total | ${v.indexed} / ${v.statsTotal} |`,
    `| payments through the gateway: sent / settled (final status SUCCESS) | ${r.traffic.sent} / ${r.traffic.settled} |`,
    `| payments failed while the load ran | ${r.trafficAtStop.failed}${r.trafficAtStop.lastError ? ` (last: ${r.trafficAtStop.lastError.split('\n')[0]})` : ''} |`,
    `| payments in flight when the traffic stopped (their wallets disconnect; the submitter still sends them) | ${r.traffic.sent - r.traffic.settled - r.traffic.failed} |`,
    `| payments failed by the stop itself (a wallet disconnected mid-request) | ${r.traffic.failed - r.trafficAtStop.failed} |`,
    `| relayer transactions the submitter replaced as stuck (unmined for 30 s) | ${r.stuckReplaced} |`,
    `| junk permits from unfunded wallets: sent (gateway answers) | ${r.junk.stats.sent} (${Object.entries(r.junk.stats.answers).sort().map(([a, n]) => `${a}: ${n}`).join(', ')}) |`,
    `| junk permits queued / failed in the submitter | ${r.junk.queued} / ${Object.entries(r.junk.failed).sort().map(([c, n]) => `${c}: ${n}`).join(', ') || '0'} |`,
    `| gateway flood from ${FLOOD_ADDRESS} | ${describeFlood(r.flood.gateway)} |`,
    `| explorer flood from ${FLOOD_ADDRESS} (never-reading subscribers among them) | ${describeFlood(r.flood.explorer)} |`,
    ...(r.webhooks
      ? [
          `| webhooks to the fast merchant: enqueued / delivered / twice | ${r.webhooks.fastEnqueued} / ${r.webhooks.fastDelivered} / ${r.webhooks.fastDuplicates} |`,
          `| fast merchant, enqueue → its request (ms): p50 / p95 / max | ${r.webhooks.fastLatencyMs.p50} / ${r.webhooks.fastLatencyMs.p95} / ${r.webhooks.fastLatencyMs.max} |`,
          `| webhooks to the ${r.webhooks.slowMerchants} slow merchants: events / requests / most at once to one (limit) | ${r.webhooks.slowEnqueued} / ${r.webhooks.slowRequests} / ${r.webhooks.slowMaxInFlight} (${r.webhooks.perMerchantConcurrency}) |`,
        ]
      : []),
    `| REST requests | ${restTotal} (${Object.entries(r.rest.statuses).sort().map(([s, n]) => `${s}: ${n}`).join(', ')}; refused while the explorer was down: ${r.rest.networkErrors}) |`,
    `| REST pages walked (random filters and cursors) | ${r.rest.pages} |`,
    `| 5xx answers (REST and SSE) | ${sum(r.rest.statuses, is5xx) + r.sse.reduce((n, s) => n + sum(s.stats.statuses, is5xx), 0)} |`,
    `| WebSocket (SDK) messages: settlements / removals | ${v.subscribers.filter((s) => s.name.startsWith('ws:')).map((s) => `${s.settlements} / ${s.removals}`).join(' · ')} |`,
    `| SSE frames: settlements / removals | ${v.subscribers.filter((s) => s.name.startsWith('sse:')).map((s) => `${s.settlements} / ${s.removals}`).join(' · ')} |`,
    `| SSE connects (each a resume after the first) | ${r.sse.map((s) => s.stats.connects).join(' · ')} |`,
    `| SDK live errors reported to \`onError\` | ${Object.entries(r.sdkErrors).map(([code, n]) => `${code}: ${n}`).join(', ') || 'none'} |`,
    `| explorer \`kill -9\` | ${count(r.faults, 'explorer-kill')} |`,
    `| submitter \`kill -9\` | ${count(r.faults, 'submitter-kill')} |`,
    `| reorgs (remined / back to the pool), total depth, transactions taken back | ${reorgs.length} (${reorgs.filter((f) => f.reorg!.kind === 'remined').length} / ${reorgs.filter((f) => f.reorg!.kind === 'mempool').length}), ${reorgs.reduce((n, f) => n + f.reorg!.depth, 0)} blocks, ${reorgs.reduce((n, f) => n + f.reorg!.transactions, 0)} |`,
    `| reorgs skipped (explorer not ready or a subscriber away) | ${r.faults.filter((f) => f.skipped).length} |`,
    `| subscriber-side drops | ${count(r.faults, 'subscriber-drop')} |`,
    `| outages after a kill (ms): min / max | ${outages.length ? `${Math.min(...outages.map((f) => f.outageMs!))} / ${Math.max(...outages.map((f) => f.outageMs!))}` : '–'} |`,
    `| recovery after a kill (explorer ready again, s): max | ${maxOf(r.faults.filter((f) => f.kind === 'explorer-kill').map((f) => f.recoverySeconds))} |`,
    `| load phase / drain and checks (s) | ${Math.round(r.loadSeconds)} / ${Math.round(r.checkSeconds)} |`,
    '',
    'Per subscriber (expected = the chain\'s settlements matching its filter):',
    '',
    '| subscriber | expected | delivered | removed | missing | extra | duplicates |',
    '|---|---|---|---|---|---|---|',
    ...v.subscribers.map((s) => `| ${s.name} | ${s.expected} | ${s.settlements} | ${s.removals} | ${s.missing.length} | ${s.extra.length} | ${s.duplicates.length} |`),
    '',
    '## RSS (MB)',
    '',
    'Sampled from `/proc/<pid>/status` every 5 s; the explorer and the submitter are sampled across their restarts.',
    'Flat = the median of the last third of the samples (after a minute of warm-up) is at most 1.25 × the median',
    'of the first third + 16 MB. anvil is shown but not judged: the devnet node keeps the chain, and by default',
    'every block\'s state, in memory, so it grows with the chain by design.',
    '',
    '| process | first third (median) | last third (median) | max | flat |',
    '|---|---|---|---|---|',
    ...r.rss.verdicts().map((x) => `| ${x.name} | ${x.earlyMedianMb} | ${x.lateMedianMb} | ${x.maxMb} | ${!x.judged ? `${x.flat ? 'yes' : 'no'} (not judged)` : x.flat ? 'yes' : '**no**'} |`),
    '',
    ...rssTable(r.rss),
    '',
    '## Faults in order',
    '',
    '| at (s) | fault | detail | back after (s) |',
    '|---|---|---|---|',
    ...r.faults.map((f) => `| ${f.at} | ${f.kind} | ${faultDetail(f)} | ${f.recoverySeconds} |`),
    '',
    '## Notes',
    '',
    '- Faults come one at a time. A reorg is made only while the explorer is caught up and every subscriber',
    '  is connected, and the next fault waits until the explorer has indexed the new branch: cursors are chain',
    '  positions, so a subscriber away while a rollback is announced is never told of it (docs/sdk.md,',
    '  "Not covered"). Production runs with CONFIRMATION_BLOCKS 12, where that takes a reorg deeper than 12',
    '  blocks; the soak runs with 0 so that its reorgs reach the subscribers at all.',
    '- The reorgs never lose a transaction for good (each one taken back is mined again): a relayer',
    '  transaction dropped after it was mined leaves a nonce gap that no submitter closes on its own.',
    '- "Replaced as stuck" counts the submitter\'s own recovery: relayer transactions that sat unmined for',
    '  SUBMITTER_STUCK_TIMEOUT_MS (30 s) after a reorg (seen after the back-to-the-pool kind, which pauses mining',
    '  and sends the taken-back transactions again ahead of them) are re-signed with higher fees and mined.',
    '- PostgreSQL (separate processes under the soak process) is not sampled for RSS.',
    '- Run it from a checkout nobody edits meanwhile: every restart of the explorer or the submitter loads the',
    '  sources as they are at that moment.',
    '',
  ]
  return lines.join('\n')
}

function rssTable(rss: RssSampler): string[] {
  const rows = rss.perMinute()
  const names = [...rss.samples.keys()]
  return [
    'Highest sample per minute:',
    '',
    `| minute | ${names.join(' | ')} |`,
    `|---|${names.map(() => '---').join('|')}|`,
    ...rows.map((row) => `| ${row.minute} | ${names.map((n) => row.mb[n] ?? '–').join(' | ')} |`),
  ]
}

function faultDetail(f: FaultRecord): string {
  if (f.skipped) return `skipped: ${f.skipped}`
  if (f.reorg) return `${f.reorg.kind}, depth ${f.reorg.depth}, ${f.reorg.transactions} transactions`
  if (f.outageMs !== undefined) return `down ${f.outageMs} ms`
  return ''
}

const maxOf = (values: number[]) => (values.length ? Math.max(...values) : '–')
