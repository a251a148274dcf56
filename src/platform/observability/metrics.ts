/**
 * A small Prometheus registry: counters, gauges and histograms with optional labels, rendered in the text
 * exposition format. Names carry the service's prefix (`explorer_` unless another is given) and base
 * units (seconds, bytes). A histogram's series (`_bucket` per bound, `_sum`, `_count`) are kept as
 * values of its metric under those suffixed keys, so snapshots of server threads merge them like any other.
 */
type Labels = Record<string, string>

interface Metric {
  name: string
  help: string
  type: 'counter' | 'gauge' | 'histogram'
  values: Map<string, number>
  collect?: () => number
  /** Writes values kept elsewhere (a histogram's buckets) into `values` before they are read. */
  flush?: () => void
}

function renderLabels(labels: Labels): string {
  const pairs = Object.entries(labels).map(([k, v]) => `${k}="${v.replace(/["\\\n]/g, '_')}"`)
  return pairs.length > 0 ? `{${pairs.join(',')}}` : ''
}

/**
 * Per metric: label sets repeat (route × status) and counting runs on every request, so each set is
 * rendered once. A metric is always given the same label names, so the values identify the set.
 */
function labelKeys(): (labels?: Labels) => string {
  const rendered = new Map<string, string>()
  return (labels) => {
    if (!labels) return ''
    const id = Object.values(labels).join('\u0000')
    let key = rendered.get(id)
    if (key === undefined) rendered.set(id, (key = renderLabels(labels)))
    return key
  }
}

/** Bounds for request durations in seconds: Prometheus' client defaults, which a p99 of 5 ms to 10 s falls within. */
export const DURATION_BUCKETS_SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] as const

/** A registry's values at one moment, by metric name then rendered label set: what another thread sends to be merged. */
export type MetricsSnapshot = Record<string, Record<string, number>>

export class Metrics {
  #metrics = new Map<string, Metric>()
  #prefix: string
  #merged: () => Iterable<MetricsSnapshot> = () => []

  constructor(prefix = 'explorer') {
    this.#prefix = prefix
  }

  #metric(name: string, help: string, type: Metric['type']): Metric {
    let metric = this.#metrics.get(name)
    if (!metric) this.#metrics.set(name, (metric = { name: `${this.#prefix}_${name}`, help, type, values: new Map() }))
    return metric
  }

  counter(name: string, help: string) {
    const metric = this.#metric(name, help, 'counter')
    const labelKey = labelKeys()
    return (by = 1, labels?: Labels) => {
      const key = labelKey(labels)
      metric.values.set(key, (metric.values.get(key) ?? 0) + by)
    }
  }

  gauge(name: string, help: string) {
    const metric = this.#metric(name, help, 'gauge')
    const labelKey = labelKeys()
    return (value: number, labels?: Labels) => void metric.values.set(labelKey(labels), value)
  }

  /**
   * Observes values (seconds, bytes) into buckets with upper bounds `bounds` (ascending) and `+Inf`. An
   * observation adds to one bucket of a plain array (the hot path: every request); the cumulative series
   * are written into the metric's values only when it is read.
   */
  histogram(name: string, help: string, bounds: readonly number[]) {
    const metric = this.#metric(name, help, 'histogram')
    const sets = new Map<string, { keys: string[]; counts: number[]; sum: number }>()
    const setOf = (labels: Labels = {}) => {
      const id = Object.values(labels).join('\u0000')
      let set = sets.get(id)
      if (set === undefined) {
        const keys = [...bounds.map(String), '+Inf'].map((le) => `_bucket${renderLabels({ ...labels, le })}`)
        keys.push(`_sum${renderLabels(labels)}`, `_count${renderLabels(labels)}`)
        sets.set(id, (set = { keys, counts: new Array<number>(bounds.length + 1).fill(0), sum: 0 }))
      }
      return set
    }
    metric.flush = () => {
      for (const { keys, counts, sum } of sets.values()) {
        let cumulative = 0
        counts.forEach((n, i) => metric.values.set(keys[i]!, (cumulative += n)))
        metric.values.set(keys[counts.length]!, sum)
        metric.values.set(keys[counts.length + 1]!, cumulative)
      }
    }
    return (value: number, labels?: Labels) => {
      const set = setOf(labels)
      let i = 0
      while (i < bounds.length && value > bounds[i]!) i++
      set.counts[i]!++
      set.sum += value
    }
  }

  /** A gauge read when scraped, for values another component already holds. */
  collected(name: string, help: string, collect: () => number): void {
    this.#metric(name, help, 'gauge').collect = collect
  }

  snapshot(): MetricsSnapshot {
    const out: MetricsSnapshot = {}
    for (const m of this.#metrics.values()) {
      m.flush?.()
      const values: Record<string, number> = (out[m.name] = Object.fromEntries(m.values))
      if (m.collect) values[''] = m.collect()
    }
    return out
  }

  /** A metric's values in `snapshot` (another registry's, with this one's prefix), summed over its label sets. */
  sumOf(snapshot: MetricsSnapshot, name: string): number {
    return Object.values(snapshot[`${this.#prefix}_${name}`] ?? {}).reduce((sum, n) => sum + n, 0)
  }

  /** Adds other registries' values (server threads' snapshots) to this one's in `render`, summed per label set. */
  merge(snapshots: () => Iterable<MetricsSnapshot>): void {
    this.#merged = snapshots
  }

  render(): string {
    const others = [...this.#merged()]
    let text = ''
    for (const m of this.#metrics.values()) {
      m.flush?.()
      text += `# HELP ${m.name} ${m.help}\n# TYPE ${m.name} ${m.type}\n`
      const values = new Map<string, number>(m.collect ? [['', m.collect()]] : [])
      for (const [labels, value] of m.values) values.set(labels, value)
      for (const other of others) for (const [labels, value] of Object.entries(other[m.name] ?? {})) values.set(labels, (values.get(labels) ?? 0) + value)
      for (const [labels, value] of values) text += `${m.name}${labels} ${value}\n`
    }
    return text
  }
}
