/**
 * A `/metrics` answer read as Prometheus reads it: the names it announces (`# TYPE`, a histogram's
 * `_bucket`, `_sum` and `_count` with its own), and its samples with their labels, to which the scrape's
 * `job` and `instance` are added as Prometheus adds them.
 */
export interface Sample {
  /** `__name__` included. */
  labels: Record<string, string>
  value: number
}

const HISTOGRAM_SERIES = ['_bucket', '_sum', '_count']

/** Every metric name the text announces, whether or not it has a sample yet (a counter never incremented). */
export function announcedNames(text: string): Set<string> {
  const names = new Set<string>()
  for (const [, name, type] of text.matchAll(/^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (\w+)$/gm)) {
    names.add(name!)
    if (type === 'histogram') for (const suffix of HISTOGRAM_SERIES) names.add(name + suffix)
  }
  return names
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g

export function samplesOf(text: string, target: { job: string; instance: string }): Sample[] {
  const samples: Sample[] = []
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue
    const match = SAMPLE.exec(line)
    if (!match) throw new Error(`not a sample: ${JSON.stringify(line)}`)
    const labels: Record<string, string> = { __name__: match[1]!, ...target }
    for (const [, name, value] of (match[2] ?? '').matchAll(LABEL)) labels[name!] = value!
    samples.push({ labels, value: match[3] === '+Inf' ? Infinity : match[3] === '-Inf' ? -Infinity : Number(match[3]) })
  }
  return samples
}
