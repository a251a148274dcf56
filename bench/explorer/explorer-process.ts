/**
 * The real explorer as a bench child, configured from the environment like `npm run explorer`, plus a
 * static page of any size at `/bench/static/:bytes` on the same server (the throughput ceiling each
 * endpoint is compared with). Sends `{ type: 'ready', url, startMs }`, where `startMs` is the time
 * `startExplorer` took; answers `memory`, `status` and `logTimes` (when each block's logs arrived,
 * recorded when BENCH_RECORD_LOG_TIMES=1: the reference point for commit-to-delivery latency).
 */
import type { HttpResponse, TemplatedApp } from 'uWebSockets.js'
import { explorerOptionsFromEnv } from '../../src/config/explorer-options.js'
import { createChainSource, type ChainSource } from '../../src/indexer/chain-source.js'
import { startExplorer } from '../../src/server/start-explorer.js'
import { serveParent } from '../lib/child.js'

const options = explorerOptionsFromEnv()
const pages = new Map<number, Buffer>()

function staticPage(res: HttpResponse, bytes: number): void {
  let page = pages.get(bytes)
  if (!page) {
    page = Buffer.alloc(bytes, 'x')
    page.write('{"events":"', 0)
    page.write('"}', bytes - 2)
    pages.set(bytes, page)
  }
  res.cork(() => {
    res.writeStatus('200 OK')
    res.writeHeader('content-type', 'application/json; charset=utf-8')
    res.writeHeader('access-control-allow-origin', '*')
    res.end(page)
  })
}

const configureApp = (app: TemplatedApp) => {
  app.get('/bench/static/:bytes', (res, req) => staticPage(res, Math.max(16, Number(req.getParameter(0)) || 16)))
}

const logTimes = new Map<number, number>()
let source: ChainSource | undefined
if (process.env.BENCH_RECORD_LOG_TIMES === '1') {
  const real = createChainSource({ rpcUrl: options.rpcUrl, contract: options.contract })
  source = {
    ...real,
    async settlementLogs(from, to) {
      const logs = await real.settlementLogs(from, to)
      const at = performance.timeOrigin + performance.now()
      for (let b = from; b <= to; b++) logTimes.set(b, at)
      return logs
    },
  }
}

const started = performance.now()
const explorer = await startExplorer(options, { configureApp, source })
const startMs = performance.now() - started

serveParent((message) => {
  switch (message.type) {
    case 'memory':
      return { memory: process.memoryUsage(), maxRssBytes: process.resourceUsage().maxRSS * 1024 }
    case 'status':
      return { status: explorer.indexer.status() }
    case 'logTimes':
      return { logTimes: [...logTimes] }
    default:
      return {}
  }
})
process.once('SIGTERM', () => void explorer.stop().then(() => process.exit(0)))
process.send?.({ type: 'ready', url: explorer.url, startMs, sinceProcessStartMs: performance.now() })
