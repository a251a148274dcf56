import assert from 'node:assert/strict'
import { test } from 'node:test'
import { Metrics } from './metrics.js'

test('render adds merged snapshots to its own values, per label set, and shows labels only they have', () => {
  const main = new Metrics()
  const other = new Metrics()
  const count = main.counter('requests_total', 'requests')
  const otherCount = other.counter('requests_total', 'requests')
  main.collected('views', 'views held', () => 2)
  other.collected('views', 'views held', () => 3)
  count(5, { route: '/a' })
  otherCount(7, { route: '/a' })
  otherCount(1, { route: '/b' })
  const snapshots = [other.snapshot()]
  main.merge(() => snapshots)
  const lines = main.render().split('\n')
  assert.ok(lines.includes('explorer_requests_total{route="/a"} 12'))
  assert.ok(lines.includes('explorer_requests_total{route="/b"} 1'))
  assert.ok(lines.includes('explorer_views 5'))
  // Its own values are untouched by a render: a second one adds the snapshot once again, not twice.
  assert.ok(main.render().split('\n').includes('explorer_requests_total{route="/a"} 12'))
})

test('sumOf adds a metric of another registry over its label sets, by the name it was registered with', () => {
  const main = new Metrics()
  const other = new Metrics()
  const count = other.counter('requests_total', 'requests')
  count(7, { route: '/a' })
  count(2, { route: '/b' })
  assert.equal(main.sumOf(other.snapshot(), 'requests_total'), 9)
  assert.equal(main.sumOf(other.snapshot(), 'absent_total'), 0)
})

test('a histogram renders cumulative buckets up to +Inf, a sum and a count per label set, and merges like the rest', () => {
  const main = new Metrics('piece')
  const other = new Metrics('piece')
  const observe = main.histogram('request_duration_seconds', 'durations', [0.1, 1])
  const otherObserve = other.histogram('request_duration_seconds', 'durations', [0.1, 1])
  observe(0.05, { route: '/a' })
  observe(0.1, { route: '/a' })
  observe(3, { route: '/a' })
  otherObserve(0.5, { route: '/a' })
  const snapshots = [other.snapshot()]
  main.merge(() => snapshots)
  const text = main.render()
  assert.ok(text.includes('# TYPE piece_request_duration_seconds histogram\n'))
  const lines = text.split('\n')
  for (const line of [
    'piece_request_duration_seconds_bucket{route="/a",le="0.1"} 2',
    'piece_request_duration_seconds_bucket{route="/a",le="1"} 3',
    'piece_request_duration_seconds_bucket{route="/a",le="+Inf"} 4',
    'piece_request_duration_seconds_sum{route="/a"} 3.65',
    'piece_request_duration_seconds_count{route="/a"} 4',
  ]) assert.ok(lines.includes(line), `${line} in\n${text}`)
})
