/**
 * A small Prometheus registry: counters and gauges with optional labels, rendered in the text
 * exposition format. Names carry the service's prefix (`explorer_` unless another is given) and base
 * units (seconds, bytes).
 */
type Labels = Record<string, string>

interface Metric {
  name: string
  help: string
  type: 'counter' | 'gauge'
  values: Map<string, number>
  collect?: () => number
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

  /** A gauge read when scraped, for values another component already holds. */
  collected(name: string, help: string, collect: () => number): void {
    this.#metric(name, help, 'gauge').collect = collect
  }

  snapshot(): MetricsSnapshot {
    const out: MetricsSnapshot = {}
    for (const m of this.#metrics.values()) {
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
      text += `# HELP ${m.name} ${m.help}\n# TYPE ${m.name} ${m.type}\n`
      const values = new Map<string, number>(m.collect ? [['', m.collect()]] : [])
      for (const [labels, value] of m.values) values.set(labels, value)
      for (const other of others) for (const [labels, value] of Object.entries(other[m.name] ?? {})) values.set(labels, (values.get(labels) ?? 0) + value)
      for (const [labels, value] of values) text += `${m.name}${labels} ${value}\n`
    }
    return text
  }
}
