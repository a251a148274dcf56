/** One progress line of the traffic generator, shared by `npm run traffic` and `npm start`. */
import type { TrafficProgress } from './run-traffic.js'

export function formatProgress(p: TrafficProgress): string {
  const line =
    `traffic: ${p.settled} settled, ${p.sent} sent, ${p.failed} failed in ${p.elapsedSeconds.toFixed(1)} s` +
    ` — ${p.rate.toFixed(1)} settlements/s`
  return p.lastError ? `${line} (last error: ${p.lastError.split('\n')[0]})` : line
}
