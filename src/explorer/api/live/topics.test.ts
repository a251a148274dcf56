import assert from 'node:assert/strict'
import { test } from 'node:test'
import { toStored } from '../../store/record.js'
import type { Hex } from '../../../wire/settlement.js'
import { fieldValuesOf } from '../../query/index.js'
import { filterTopic, topicsOf } from './topics.js'

const A = `0x${'a1'.repeat(20)}` as Hex
const B = `0x${'b2'.repeat(20)}` as Hex
const TOKEN = `0x${'70'.repeat(20)}` as Hex

function settlement(payer: Hex, recipient: Hex) {
  return toStored(
    {
      blockNumber: 10,
      logIndex: 0,
      blockHash: `0x${'00'.repeat(32)}`,
      timestamp: 1,
      txHash: `0x${'7e'.repeat(32)}`,
      token: TOKEN,
      payer,
      recipient,
      amount: 1n,
      fee: 1n,
      reference: `0x${'00'.repeat(32)}`,
      domainSeparator: `0x${'dd'.repeat(32)}`,
    },
    1,
  )
}

/** How many times a subscription with `filter` would get the settlement: its topic among the settlement's topics of its shape. */
function deliveries(filter: Parameters<typeof filterTopic>[0], payer: Hex, recipient: Hex): number {
  const { shape, topic } = filterTopic(filter)
  return topicsOf(shape, fieldValuesOf(settlement(payer, recipient))).filter((t) => t === topic).length
}

test('a settlement from A to B reaches address=A and address=B subscribers once each', () => {
  assert.equal(deliveries({ address: A }, A, B), 1)
  assert.equal(deliveries({ address: B }, A, B), 1)
  assert.equal(deliveries({ address: A, payer: A }, A, B), 1)
  assert.equal(deliveries({ address: B, payer: A, token: TOKEN }, A, B), 1)
  assert.equal(deliveries({ address: A, recipient: A }, A, B), 0)
  assert.equal(deliveries({ address: `0x${'cc'.repeat(20)}` }, A, B), 0)
})

test('a self-payment belongs to one address topic per shape', () => {
  assert.equal(deliveries({ address: A }, A, A), 1)
  assert.equal(deliveries({ address: A, payer: A, recipient: A }, A, A), 1)
  const values = fieldValuesOf(settlement(A, A))
  assert.equal(values.length, 1)
  assert.equal(topicsOf(filterTopic({ address: A }).shape, values).length, 1)
})

test('shapes without address have one topic per settlement, whatever its addresses', () => {
  const values = fieldValuesOf(settlement(A, B))
  assert.equal(values.length, 2)
  assert.equal(topicsOf(filterTopic({ payer: A }).shape, values).length, 1)
  assert.equal(topicsOf(filterTopic({}).shape, values).length, 1)
  assert.equal(deliveries({ payer: A, recipient: B }, A, B), 1)
})
