/**
 * A small Prometheus registry: counters and gauges with optional labels, rendered in the text
 * exposition format. Names carry the `explorer_` prefix and base units (seconds, bytes).
 */
type Labels = Record<string, string>

interface Metric {
  name: string
  help: string
  type: 'counter' | 'gauge'
  values: Map<string, number>
  collect?: () => number
}

const labelKey = (labels?: Labels) =>
  labels && Object.keys(labels).length > 0
    ? `{${Object.entries(labels)
        .map(([k, v]) => `${k}="${v.replace(/["\\\n]/g, '_')}"`)
        .join(',')}}`
    : ''

export class Metrics {
  #metrics = new Map<string, Metric>()

  #metric(name: string, help: string, type: Metric['type']): Metric {
    let metric = this.#metrics.get(name)
    if (!metric) this.#metrics.set(name, (metric = { name: `explorer_${name}`, help, type, values: new Map() }))
    return metric
  }

  counter(name: string, help: string) {
    const metric = this.#metric(name, help, 'counter')
    return (by = 1, labels?: Labels) => {
      const key = labelKey(labels)
      metric.values.set(key, (metric.values.get(key) ?? 0) + by)
    }
  }

  gauge(name: string, help: string) {
    const metric = this.#metric(name, help, 'gauge')
    return (value: number, labels?: Labels) => void metric.values.set(labelKey(labels), value)
  }

  /** A gauge read when scraped, for values another component already holds. */
  collected(name: string, help: string, collect: () => number): void {
    this.#metric(name, help, 'gauge').collect = collect
  }

  render(): string {
    let text = ''
    for (const m of this.#metrics.values()) {
      text += `# HELP ${m.name} ${m.help}\n# TYPE ${m.name} ${m.type}\n`
      if (m.collect) text += `${m.name} ${m.collect()}\n`
      for (const [labels, value] of m.values) text += `${m.name}${labels} ${value}\n`
    }
    return text
  }
}
