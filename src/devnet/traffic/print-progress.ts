/**
 * The traffic generator's progress, shared by `npm run traffic` and `npm start`. On a terminal it is one
 * line rewritten in place, so that the lines above it (where to open the store) stay on screen; in a log
 * file or pipe, a line every `everyMs`.
 */
import type { TrafficProgress } from './run-traffic.js'

export function formatProgress(p: TrafficProgress): string {
  const line =
    `traffic: ${p.settled} settled, ${p.sent} sent, ${p.failed} failed in ${p.elapsedSeconds.toFixed(1)} s` +
    ` — ${p.rate.toFixed(1)} settlements/s`
  return p.lastError ? `${line} (last error: ${p.lastError.split('\n')[0]})` : line
}

export interface ProgressPrinterOptions {
  /** Appended to every line (e.g. where to look). */
  suffix?: string
  /** Between lines when the output is not a terminal. */
  everyMs?: number
  out?: { isTTY?: boolean; write(text: string): unknown }
}

export function createProgressPrinter({ suffix = '', everyMs = 10_000, out = process.stdout }: ProgressPrinterOptions = {}): (p: TrafficProgress) => void {
  let lastPrinted = -Infinity
  return (p) => {
    const line = `${formatProgress(p)}${suffix}`
    if (out.isTTY) {
      out.write(`\r\x1b[2K${line}`)
      return
    }
    const now = p.elapsedSeconds * 1000
    if (now - lastPrinted < everyMs) return
    lastPrinted = now
    out.write(`${line}\n`)
  }
}
