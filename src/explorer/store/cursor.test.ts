import assert from 'node:assert/strict'
import { test } from 'node:test'
import { decodeCursor, encodeCursor } from './cursor.js'

test('cursors round-trip positions', () => {
  for (const [blockNumber, logIndex] of [[0, 0], [1, 2], [19_000_000, 431], [2 ** 40, 70_000]] as const) {
    assert.deepEqual(decodeCursor(encodeCursor(blockNumber, logIndex)), { blockNumber, logIndex })
  }
})

test('edited, truncated, extended or foreign cursors are refused', () => {
  const cursor = encodeCursor(123456, 7)
  const flipped = cursor.slice(0, 5) + (cursor[5] === 'A' ? 'B' : 'A') + cursor.slice(6)
  for (const bad of [cursor.slice(0, -1), `${cursor}A`, flipped, '', 'not a cursor!', Buffer.from('{"block":1}').toString('base64url')]) {
    assert.equal(decodeCursor(bad), undefined, bad)
  }
})

test('the last log index of a block is a position (REMOVED cursors point just before a block); the last block is not', () => {
  assert.deepEqual(decodeCursor(encodeCursor(5, 0xffffffff)), { blockNumber: 5, logIndex: 0xffffffff })
  assert.equal(decodeCursor(encodeCursor(2 ** 48 - 2, 0)), undefined)
})
