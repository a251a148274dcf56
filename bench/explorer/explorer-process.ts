/**
 * The real explorer as a bench child, configured from the environment like `npm run explorer`, plus a
 * static page of any size at `/bench/static/:bytes` on the same server, in every server thread
 * (static-page.ts: the throughput ceiling each endpoint is compared with). Sends `{ type: 'ready', url,
 * startMs }`, where `startMs` is the time `startExplorer` took; answers `memory`, `cpu`, `status`,
 * `commitTimes` (when each block was committed, recorded when BENCH_RECORD_COMMIT_TIMES=1: the
 * reference for commit-to-delivery latency) and `profileStart` / `profileStop` (a CPU profile of the main thread over exactly the measured window).
 */
import { writeFileSync } from 'node:fs'
import { Session } from 'node:inspector/promises'
import { explorerOptionsFromEnv } from '../../src/config/index.js'
import { readHead } from '../../src/explorer/store/index.js'
import { startExplorer } from '../../src/explorer/index.js'
import { serveParent } from '../lib/child.js'
import { rssAnonBytes } from '../lib/machine.js'
import { threadCpuSeconds } from '../lib/proc.js'

const options = explorerOptionsFromEnv()
const started = performance.now()
const explorer = await startExplorer(options, { appModule: new URL('./static-page.ts', import.meta.url).href })
const startMs = performance.now() - started

const commitTimes = new Map<number, number>()
if (process.env.BENCH_RECORD_COMMIT_TIMES === '1') {
  let recorded = readHead(explorer.store)?.blockNumber ?? 0
  explorer.store.env.on('aftercommit', () => {
    const at = performance.timeOrigin + performance.now()
    const head = readHead(explorer.store)?.blockNumber ?? 0
    for (let b = recorded + 1; b <= head; b++) commitTimes.set(b, at)
    recorded = Math.max(recorded, head)
  })
}

const inspector = new Session()
inspector.connect()

serveParent(async (message) => {
  switch (message.type) {
    case 'memory':
      return { memory: process.memoryUsage(), maxRssBytes: process.resourceUsage().maxRSS * 1024, rssAnonBytes: rssAnonBytes() }
    case 'cpu':
      // The main thread apart: it runs uWS and the inline queries; the rest is the pools and LMDB.
      return { cpu: process.cpuUsage(), mainThreadSeconds: threadCpuSeconds(process.pid) }
    case 'status':
      return { status: explorer.indexer.status() }
    case 'commitTimes':
      return { commitTimes: [...commitTimes] }
    case 'gc':
      await inspector.post('HeapProfiler.collectGarbage')
      return {}
    case 'profileStart':
      await inspector.post('Profiler.enable')
      await inspector.post('Profiler.start')
      return {}
    case 'profileStop': {
      const { profile } = await inspector.post('Profiler.stop')
      writeFileSync(String(message.path), JSON.stringify(profile))
      return {}
    }
    default:
      return {}
  }
})
process.once('SIGTERM', () => void explorer.stop().then(() => process.exit(0)))
process.send?.({ type: 'ready', url: explorer.url, startMs, sinceProcessStartMs: performance.now() })
