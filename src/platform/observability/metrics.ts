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

export class Metrics {
  #metrics = new Map<string, Metric>()
  #prefix: string

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
