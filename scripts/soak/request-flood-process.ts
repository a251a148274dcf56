/**
 * The request flood (request-flood.ts) as a process of its own, as clients on other machines would be:
 * thousands of reconnecting clients would otherwise share the soak process's event loop and memory with
 * the webhook receivers, the checkout engine and the widget it measures. Forked with the flood's options
 * as JSON in its one argument; a 'stop' message ends it, and it answers with its stats before exiting.
 */
import { startRequestFlood, type RequestFloodOptions } from './request-flood.js'

const stop = new AbortController()
const flood = startRequestFlood({ ...(JSON.parse(process.argv[2]!) as Omit<RequestFloodOptions, 'signal'>), signal: stop.signal })
process.once('message', () => {
  stop.abort()
  void flood.done.then(() => process.send!(flood.stats, () => process.exit(0)))
})
