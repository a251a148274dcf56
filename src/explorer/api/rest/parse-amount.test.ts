import assert from 'node:assert/strict'
import { test } from 'node:test'
import { ProblemError } from '../../../platform/http/index.js'
import { parseAmountRange } from './parse-query.js'

const parse = (entries: Record<string, string>) => parseAmountRange(new Map(Object.entries(entries)))

function refused(entries: Record<string, string>, param: string) {
  assert.throws(() => parse(entries), (error: unknown) => error instanceof ProblemError && error.param === param, JSON.stringify(entries))
}

test('amount bounds: plain decimal integers up to 2^256 − 1, leading zeros dropped', () => {
  const max = (2n ** 256n - 1n).toString()
  assert.deepEqual(parse({ minAmount: '0', maxAmount: max }), { minAmount: '0', maxAmount: max })
  assert.deepEqual(parse({ minAmount: '007' }), { minAmount: '7' })
  assert.deepEqual(parse({ minAmount: '5', maxAmount: '5' }), { minAmount: '5', maxAmount: '5' })
  assert.deepEqual(parse({}), {})
})

test('amount bounds: every bad value is refused naming its parameter', () => {
  for (const bad of ['-1', '1.5', '1.', '0x10', '1e6', 'abc', '', ' 1', '+1', (2n ** 256n).toString(), '9'.repeat(200)]) {
    refused({ minAmount: bad }, 'minAmount')
    refused({ maxAmount: bad }, 'maxAmount')
  }
  refused({ minAmount: '10', maxAmount: '9' }, 'minAmount')
  refused({ minAmount: '100', maxAmount: '99' }, 'minAmount')
})
