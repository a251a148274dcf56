import assert from 'node:assert/strict'
import { test } from 'node:test'
import { isRetryable } from '../../errors/index.js'
import { classifyNodeError, crossThreads, MalformedLogError, NodeReadError, RangeTooLargeError } from './node-errors.js'

// What the indexer's thread receives from an indexing worker: a structured clone, which keeps an
// error's message and cause but not its class.
const acrossThreads = (error: unknown, message: string) => structuredClone(crossThreads(error, message))
const range = { from: 10, to: 20 }

test('a malformed log found in an indexing worker stays a non-retryable MalformedLogError on the indexer thread', () => {
  const crossed = acrossThreads(new MalformedLogError('log 0x1:0 is not a PermittedTransfer'), 'log 0x1:0 is not a PermittedTransfer')
  assert.equal(crossed.constructor, Error, 'the class is lost on the way')
  const classified = classifyNodeError(crossed, range)
  assert.ok(classified instanceof MalformedLogError)
  assert.equal(isRetryable(classified), false)
})

test("a node's failure in an indexing worker stays retryable, and a range refused as too large is still recognised", () => {
  const reset = acrossThreads(new Error('fetch failed'), 'fetch failed')
  assert.ok(classifyNodeError(reset, range) instanceof NodeReadError)
  assert.equal(isRetryable(classifyNodeError(reset, range)), true)
  const tooLarge = classifyNodeError(acrossThreads(new Error('query returned more than 10000 results'), 'query returned more than 10000 results'), range)
  assert.ok(tooLarge instanceof RangeTooLargeError)
  assert.equal(isRetryable(tooLarge), true)
})
