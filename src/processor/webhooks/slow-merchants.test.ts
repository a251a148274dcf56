/** The worker's memory of slow merchants: the last answer decides, and it forgets the oldest past its bound. */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createSlowMerchants } from './slow-merchants.js'

test('a merchant is slow from an answer that took slowMs or more until one that did not', () => {
  const slow = createSlowMerchants(1_000)
  slow.answered('m_fast', 999)
  slow.answered('m_slow', 1_000)
  slow.answered('m_timeout', 10_000)
  assert.deepEqual(slow.list(), ['m_slow', 'm_timeout'])
  slow.answered('m_slow', 20)
  assert.deepEqual(slow.list(), ['m_timeout'])
})

test('remembers at most 1000 merchants, forgetting the one slow longest ago', () => {
  const slow = createSlowMerchants(1)
  for (let i = 0; i <= 1_000; i++) slow.answered(`m_${i}`, 5)
  slow.answered('m_1', 5)
  const list = slow.list()
  assert.equal(list.length, 1_000)
  assert.ok(!list.includes('m_0'))
  assert.equal(list.at(-1), 'm_1')
})
