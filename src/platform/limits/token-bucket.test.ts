import assert from 'node:assert/strict'
import { test } from 'node:test'
import { TokenBucket } from './token-bucket.js'

test('a token bucket serves its burst at once, then its rate, and never saves more than the burst', () => {
  const bucket = new TokenBucket({ perSecond: 2, burst: 3 }, 0)
  assert.deepEqual([1, 2, 3, 4].map(() => bucket.take(0)), [true, true, true, false])
  assert.equal(bucket.take(400), false, '0.8 of a token after 400 ms')
  assert.equal(bucket.take(500), true, 'one token after 500 ms')
  assert.deepEqual([1, 2, 3, 4].map(() => bucket.take(60_000)), [true, true, true, false])
})
