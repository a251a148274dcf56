/**
 * A service's metrics registry with the gauges every server exports (`GET /metrics`): when the process
 * started, how long it has run, and its memory. They are read when scraped, so nothing ticks between.
 */
import { Metrics } from './metrics.js'

/** `prefix`: the service's, e.g. `gateway` gives `gateway_process_uptime_seconds`. */
export function serviceMetrics(prefix: string): Metrics {
  const metrics = new Metrics(prefix)
  const startedAt = Date.now() / 1000 - process.uptime()
  metrics.collected('process_start_time_seconds', 'Unix time the process started, in seconds', () => Math.floor(startedAt))
  metrics.collected('process_uptime_seconds', 'Seconds since the process started', () => Math.floor(process.uptime()))
  metrics.collected('process_resident_memory_bytes', 'Resident memory of the process', () => process.memoryUsage.rss())
  metrics.collected('process_heap_used_bytes', 'V8 heap in use', () => process.memoryUsage().heapUsed)
  return metrics
}
