/**
 * Checks a `/metrics` answer: Prometheus text format 0.0.4 (its content type; every sample a valid name,
 * optional labels and a number, announced by its `# HELP` and `# TYPE`, a histogram's `_bucket`, `_sum`
 * and `_count` by its own), with the process gauges every
 * piece exports under its prefix (unless `processGauges` is false: an explorer started in-process
 * without the piece's services). Returns the samples by name (labels included) for further checks.
 */
import assert from 'node:assert/strict'

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\.)*"(?:,[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\.)*")*\})? (-?(?:[0-9]+(?:\.[0-9]+)?(?:e[+-]?[0-9]+)?|NaN|\+Inf|-Inf))$/

export function checkPrometheusText(answer: { status: number; headers: Headers; body: unknown }, prefix: string, { processGauges = true } = {}): Map<string, number> {
  assert.equal(answer.status, 200)
  assert.match(answer.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4(; charset=utf-8)?$/)
  const text = String(answer.body)
  assert.ok(text.endsWith('\n'), 'the exposition ends with a newline')
  const announced = new Map<string, { help: boolean; type?: string }>()
  const samples = new Map<string, number>()
  for (const line of text.slice(0, -1).split('\n')) {
    const comment = /^# (HELP|TYPE) ([a-zA-Z_:][a-zA-Z0-9_:]*) (.+)$/.exec(line)
    if (comment) {
      const entry = announced.get(comment[2]!) ?? { help: false }
      if (comment[1] === 'HELP') entry.help = true
      else entry.type = comment[3]
      announced.set(comment[2]!, entry)
      continue
    }
    const sample = SAMPLE.exec(line)
    assert.ok(sample, `not a Prometheus sample: ${JSON.stringify(line)}`)
    // A histogram's series are announced under its name without the suffix.
    const base = /^(.+)_(bucket|sum|count)$/.exec(sample[1]!)?.[1]
    const entry = base && announced.get(base)?.type === 'histogram' ? announced.get(base) : announced.get(sample[1]!)
    assert.ok(entry?.help && ['counter', 'gauge', 'histogram'].includes(entry.type ?? ''), `${sample[1]} has no # HELP and # TYPE before it`)
    samples.set(sample[1]! + (sample[2] ?? ''), Number(sample[3]))
  }
  if (processGauges) for (const gauge of ['process_start_time_seconds', 'process_uptime_seconds', 'process_resident_memory_bytes', 'process_heap_used_bytes']) {
    assert.ok(samples.get(`${prefix}_${gauge}`)! >= 0, `${prefix}_${gauge} is exported`)
  }
  return samples
}
