import assert from 'node:assert/strict'
import { test } from 'node:test'
import { HttpRequestError, InvalidParamsRpcError, RpcRequestError, TimeoutError } from 'viem'
import { BaseError, isRetryable, walkCauses } from './base-error.js'

test('a plain Error, a TypeError or a thrown string is not retryable: a bug or bad data fails the same way again', () => {
  assert.equal(isRetryable(new Error('log 0x1:0 is not a PermittedTransfer')), false)
  assert.equal(isRetryable(new TypeError("Cannot read properties of undefined (reading 'hash')")), false)
  assert.equal(isRetryable('boom'), false)
  assert.equal(isRetryable(undefined), false)
})

test("the project's errors say it themselves, whatever their causes", () => {
  assert.equal(isRetryable(new BaseError('node down', { retryable: true })), true)
  assert.equal(isRetryable(new BaseError('bad setting')), false)
  const refused = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })
  assert.equal(isRetryable(new BaseError('the node serves another chain', { cause: refused })), false)
})

test('network failures, timeouts, HTTP 5xx/429 and busy nodes from outside are retryable; a refused request is not', () => {
  const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:8545'), { code: 'ECONNREFUSED' })
  assert.equal(isRetryable(new TypeError('fetch failed', { cause: refused })), true)
  assert.equal(isRetryable(new HttpRequestError({ url: 'http://node', status: 503 })), true)
  assert.equal(isRetryable(new HttpRequestError({ url: 'http://node', status: 429 })), true)
  assert.equal(isRetryable(new HttpRequestError({ url: 'http://node' })), true, 'no status: no answer at all')
  assert.equal(isRetryable(new HttpRequestError({ url: 'http://node', status: 400 })), false)
  assert.equal(isRetryable(new TimeoutError({ body: {}, url: 'http://node' })), true)
  assert.equal(isRetryable(new InvalidParamsRpcError(new RpcRequestError({ body: {}, url: 'http://node', error: { code: -32602, message: 'bad' } }))), false)
})

test("walk finds an error of the chain, or the innermost one, like viem's", () => {
  const root = new Error('root')
  const middle = new BaseError('middle', { cause: root })
  const top = new BaseError('top', { cause: middle, details: { from: 1 } })
  assert.equal(top.walk(), root)
  assert.equal(top.walk((e) => e instanceof BaseError && e.message === 'middle'), middle)
  assert.equal(top.walk((e) => e === 'nothing'), null)
  assert.equal(top.shortMessage, 'top')
  assert.deepEqual(top.details, { from: 1 })
  const loop = new Error('a')
  ;(loop as { cause?: unknown }).cause = loop
  assert.equal(walkCauses(loop, () => false), null, 'a cause chain that loops ends')
})
