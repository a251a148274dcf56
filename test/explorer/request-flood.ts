/**
 * The flood of test/explorer/request-caps.test.ts, in a worker thread: 200 slow exports (four from each
 * of 50 loopback addresses in turn) and 1,000 two-filter `/events` queries, all at once. The exports are
 * read slowly until `drainAfterMs`, then at full speed, so that an export the server cut off is seen to
 * end soon after. Posts every query's answer and every export's end once all have come.
 */
import { parentPort, workerData } from 'node:worker_threads'
import { get, slowExport, type Answer, type ExportEnd } from './request-clients.js'

export interface FloodResult {
  queries: Answer[]
  exports: { status: number; end: ExportEnd }[]
}

const { url, queries, exports, drainAfterMs } = workerData as { url: string; queries: string[]; exports: { localAddress: string; path: string }[]; drainAfterMs: number }
const at = new URL(url)
const running = exports.map((e) => slowExport(at, e.localAddress, e.path))
setTimeout(() => running.forEach((e) => e.drain()), drainAfterMs)
const answers = await Promise.all(queries.map((path) => get(at, path)))
const result: FloodResult = { queries: answers, exports: await Promise.all(running.map(async (e) => ({ status: await e.status, end: await e.done }))) }
parentPort!.postMessage(result)
