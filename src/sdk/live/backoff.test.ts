import assert from 'node:assert/strict'
import { test } from 'node:test'
import { DEFAULT_RECONNECT, reconnectDelay } from './backoff.js'

test('reconnect delays double from the initial delay, stay in the upper half of each step, and are capped', () => {
  const low = () => 0
  const high = () => 1
  assert.deepEqual([0, 1, 2, 3].map((a) => reconnectDelay(a, DEFAULT_RECONNECT, high)), [250, 500, 1000, 2000])
  assert.deepEqual([0, 1, 2, 3].map((a) => reconnectDelay(a, DEFAULT_RECONNECT, low)), [125, 250, 500, 1000])
  assert.equal(reconnectDelay(50, DEFAULT_RECONNECT, high), 10_000)
  assert.equal(reconnectDelay(1000, { initialDelayMs: 100, maxDelayMs: 400 }, low), 200)
})
