import assert from 'node:assert/strict'
import { test } from 'node:test'
import { displayAmount } from './display-amount.js'

test('amounts in token units: decimals applied, thousands grouped, two fraction digits at least, never rounded', () => {
  assert.equal(displayAmount(25_000_000n, 6), '25.00')
  assert.equal(displayAmount('1500000', 6), '1.50')
  assert.equal(displayAmount(1_234_567_890_123n, 6), '1,234,567.890123')
  assert.equal(displayAmount(999_000_000n, 6), '999.00')
  assert.equal(displayAmount(1_000_000_000n, 6), '1,000.00')
  assert.equal(displayAmount(-1_234_500_000n, 6), '-1,234.50')
  assert.equal(displayAmount(0n, 6), '0.00')
  assert.equal(displayAmount(1234n, 0), '1,234')
})
