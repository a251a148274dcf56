/**
 * The request flood (request-flood.ts) on a thread of its own: thousands of reconnecting clients would
 * otherwise share the soak process's event loop with the webhook receivers, the checkout engine and the
 * widget it measures. Started with the flood's options as workerData; a 'stop' message ends it, and it
 * answers with its stats.
 */
import { parentPort, workerData } from 'node:worker_threads'
import { startRequestFlood, type RequestFloodOptions } from './request-flood.js'

const stop = new AbortController()
const flood = startRequestFlood({ ...(workerData as Omit<RequestFloodOptions, 'signal'>), signal: stop.signal })
parentPort!.once('message', () => {
  stop.abort()
  void flood.done.then(() => parentPort!.postMessage(flood.stats))
})
