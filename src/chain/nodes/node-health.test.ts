import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createNodeHealth } from './node-health.js'

test('the first node while it is fine; the next while it fails; the first again once it answers', () => {
  const health = createNodeHealth({ count: 3, stallMs: 1_000, checkChain: false })
  assert.deepEqual(health.order(0), [0, 1, 2])
  health.failed(0)
  assert.equal(health.current(1), 1)
  assert.deepEqual(health.order(1), [1, 2, 0])
  health.failed(1)
  assert.deepEqual(health.order(2), [2, 0, 1])
  health.answered(0, 3, 10n)
  assert.equal(health.current(3), 0)
  assert.deepEqual(health.healthy(3), [0, 2])
})

test('a head unmoved for stallMs while another has been higher as long lags; it is used again once it has caught up', () => {
  const health = createNodeHealth({ count: 2, stallMs: 1_000, checkChain: false })
  health.answered(0, 0, 5n)
  health.answered(1, 0, 5n)
  // Both still: a quiet chain, not a lag.
  assert.equal(health.current(5_000), 0)
  health.answered(1, 5_100, 6n)
  assert.equal(health.current(5_100), 0, 'one block behind for a moment is no lag')
  health.answered(1, 5_900, 7n)
  health.answered(0, 5_950, 5n)
  assert.equal(health.current(6_099), 0)
  assert.equal(health.current(6_100), 1, 'unmoved since 0 and behind since 5 100')
  assert.deepEqual(health.healthy(6_100), [1])
  // Moving again but behind: it comes back only once it has caught up with the node in use.
  health.answered(0, 6_200, 6n)
  assert.equal(health.current(6_200), 1)
  health.answered(0, 6_300, 7n)
  assert.equal(health.current(6_300), 0)
  assert.deepEqual(health.describe(6_300).map((n) => n.current), [true, false])
})

test('with checkChain, a node is fine only once its chain is right; one serving another chain is never asked', () => {
  const health = createNodeHealth({ count: 2, stallMs: 1_000, checkChain: true })
  // Unknown nodes are a last resort, in order (the start's check settles them).
  assert.deepEqual(health.order(0), [0, 1])
  assert.deepEqual(health.healthy(0), [])
  health.checkedChain(0, 'wrong')
  health.checkedChain(1, 'right')
  assert.deepEqual(health.order(0), [1])
  health.failed(1)
  assert.deepEqual(health.order(0), [1])
})

test('once a node is known to be on the right chain, a node not yet checked is not asked, even as a last resort', () => {
  const health = createNodeHealth({ count: 3, stallMs: 1_000, checkChain: true })
  health.checkedChain(1, 'right')
  assert.deepEqual(health.order(0), [1])
  health.failed(1)
  assert.deepEqual(health.order(0), [1])
  health.checkedChain(0, 'right')
  assert.deepEqual(health.order(0), [0, 1])
})
