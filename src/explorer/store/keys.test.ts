import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { Hex } from '../../wire/index.js'
import {
  HIGHEST_PK,
  INDEX_VALUE_BYTES,
  LOWEST_PK,
  PK_BYTES,
  bareIndexValue,
  blockEndPk,
  blockStartPk,
  compareIndexValuePks,
  decodeBareHexKey,
  decodeBlockKey,
  decodeHexKey,
  decodeHourKey,
  decodePk,
  decodeTimeKey,
  encodeBareHexKey,
  encodeBlockKey,
  encodeHexKey,
  encodeHourKey,
  encodePk,
  encodeTimeKey,
  hourStartKey,
  indexKeyAt,
  indexKeyFromString,
  indexKeyString,
  indexValueBefore,
  indexValueOrdinal,
  indexValuePk,
  isLowestPk,
  keyAfter,
  pkAt,
  writeIndexValue,
  writePk,
} from './keys.js'
import { dictionaryIdKey, encodeAmountClassKey, encodeAmountEntryKey, writeAmountClassKey, writeAmountEntryKey } from './keys.js'

const POSITIONS = [
  [0, 0],
  [0, 1],
  [1, 0],
  [255, 0xffff_ffff],
  [256, 0],
  [19_000_000, 431],
  [2 ** 32, 7],
  [2 ** 48 - 1, 0xffff_ffff],
] as const

test('primary keys round-trip positions, and sort in chain order', () => {
  const keys = POSITIONS.map(([blockNumber, logIndex]) => {
    const key = encodePk(blockNumber, logIndex)
    assert.equal(key.length, PK_BYTES)
    assert.deepEqual(decodePk(key), { blockNumber, logIndex })
    return key
  })
  for (let i = 1; i < keys.length; i++) assert.ok(Buffer.compare(keys[i - 1]!, keys[i]!) < 0, `${POSITIONS[i - 1]} before ${POSITIONS[i]}`)
  assert.ok(isLowestPk(encodePk(0, 0)))
  assert.ok(!isLowestPk(encodePk(0, 1)))
  assert.deepEqual(LOWEST_PK, encodePk(0, 0))
  for (const key of keys.slice(0, -1)) assert.ok(Buffer.compare(key, HIGHEST_PK) < 0, 'every block the store takes sorts below it')
})

test('a primary key written into a buffer at an offset is the one encodePk gives, read back without a copy', () => {
  const out = Buffer.alloc(3 * PK_BYTES + 5, 0xee)
  for (const [i, [blockNumber, logIndex]] of POSITIONS.slice(0, 3).entries()) {
    const at = 5 + i * PK_BYTES
    assert.equal(writePk(out, at, blockNumber, logIndex), at + PK_BYTES)
    const key = pkAt(out, at)
    assert.deepEqual(key, encodePk(blockNumber, logIndex))
    assert.equal(key.buffer, out.buffer, 'a view of the batch bytes')
    assert.deepEqual(decodePk(key), { blockNumber, logIndex })
  }
  assert.deepEqual(out.subarray(0, 5), Buffer.alloc(5, 0xee), 'nothing before the offset is touched')
})

test('block bounds and the key after a position', () => {
  assert.deepEqual(decodePk(blockStartPk(9)), { blockNumber: 9, logIndex: 0 })
  assert.deepEqual(decodePk(blockEndPk(9)), { blockNumber: 10, logIndex: 0 })
  assert.deepEqual(decodePk(keyAfter({ blockNumber: 9, logIndex: 3 })), { blockNumber: 9, logIndex: 4 })
  assert.deepEqual(decodePk(keyAfter({ blockNumber: 9, logIndex: 0xffff_ffff })), { blockNumber: 10, logIndex: 0 })
})

test('counted index values round-trip primary key and ordinal, written at an offset into a shared buffer', () => {
  const values = Buffer.alloc(3 * INDEX_VALUE_BYTES)
  const written = POSITIONS.slice(2, 5).map(([blockNumber, logIndex], i) => {
    const value = writeIndexValue(values, i * INDEX_VALUE_BYTES, encodePk(blockNumber, logIndex), 1000 + i)
    assert.equal(value.length, INDEX_VALUE_BYTES)
    assert.equal(value.buffer, values.buffer, 'a view of the caller’s buffer')
    return value
  })
  for (const [i, [blockNumber, logIndex]] of POSITIONS.slice(2, 5).entries()) {
    const value = written[i]!
    assert.deepEqual(decodePk(indexValuePk(value)), { blockNumber, logIndex })
    assert.equal(indexValueOrdinal(value), 1000 + i)
  }
})

test('index values order by primary key, and compare with primary keys by theirs', () => {
  const pk = encodePk(100, 5)
  const value = (blockNumber: number, logIndex: number, ordinal: number) => writeIndexValue(Buffer.alloc(INDEX_VALUE_BYTES), 0, encodePk(blockNumber, logIndex), ordinal)
  assert.equal(compareIndexValuePks(value(100, 5, 1), value(100, 5, 9)), 0, 'ordinals aside')
  assert.ok(compareIndexValuePks(value(100, 4, 9), value(100, 5, 1)) < 0)
  assert.ok(compareIndexValuePks(value(101, 0, 1), value(100, 5, 9)) > 0)
  assert.ok(indexValueBefore(value(100, 4, 0xffff_ffff), pk))
  assert.ok(!indexValueBefore(value(100, 5, 0), pk), 'the same primary key is not before it')
  assert.ok(!indexValueBefore(value(100, 6, 0), pk))
  assert.ok(indexValueBefore(bareIndexValue(encodePk(100, 4)), pk))
  assert.ok(!indexValueBefore(bareIndexValue(encodePk(100, 5)), pk))
  assert.deepEqual(indexValuePk(bareIndexValue(pk)), pk, 'a bare value is its primary key')
})

test('hex keys round-trip addresses, order references and hashes', () => {
  for (const hex of [`0x${'ab'.repeat(20)}`, `0x${'01'.repeat(16)}`, `0x${'f0'.repeat(32)}`] as Hex[]) {
    const key = encodeHexKey(hex)
    assert.equal(key.length, (hex.length - 2) / 2)
    assert.equal(decodeHexKey(key), hex)
    assert.deepEqual(encodeBareHexKey(hex.slice(2)), key)
    assert.equal(decodeBareHexKey(key), hex.slice(2))
  }
})

test('an index key taken from a record’s bytes, and its string form, give the same key', () => {
  const address = encodeHexKey(`0x${'0a'.repeat(19)}ff`)
  const record = Buffer.concat([Buffer.alloc(7, 0x11), address, Buffer.alloc(3, 0x22)])
  const key = indexKeyAt(record, 7, 27)
  assert.deepEqual(key, address)
  assert.equal(key.buffer, record.buffer, 'a view of the record')
  const text = indexKeyString(record, 7, 27)
  assert.equal(text.length, 20)
  assert.deepEqual(indexKeyFromString(text), address)
  assert.equal(decodeBareHexKey(indexKeyFromString(text)), `${'0a'.repeat(19)}ff`)
})

test('time keys round-trip and sort by timestamp, then block', () => {
  const pairs = [[0, 0], [1_700_000_000, 5], [1_700_000_000, 6], [1_700_000_001, 2], [2 ** 32 - 1, 2 ** 48 - 1]] as const
  const keys = pairs.map(([timestamp, blockNumber]) => {
    const key = encodeTimeKey(timestamp, blockNumber)
    assert.deepEqual(decodeTimeKey(key), { timestamp, blockNumber })
    return key
  })
  for (let i = 1; i < keys.length; i++) assert.ok(Buffer.compare(keys[i - 1]!, keys[i]!) < 0)
})

test('block keys round-trip and sort by block', () => {
  for (const blockNumber of [0, 1, 256, 19_000_000, 2 ** 48 - 1]) assert.equal(decodeBlockKey(encodeBlockKey(blockNumber)), blockNumber)
  assert.ok(Buffer.compare(encodeBlockKey(255), encodeBlockKey(256)) < 0)
})

test('hour keys round-trip, and an hour’s start key sorts before each of its tokens and after the hour before', () => {
  const token = `${'c3'.repeat(20)}`
  const key = encodeHourKey(472_222, encodeBareHexKey(token))
  assert.equal(key.length, 24)
  assert.deepEqual(decodeHourKey(key), { hour: 472_222, token })
  assert.deepEqual(decodeHourKey(hourStartKey(472_222)), { hour: 472_222, token: '00'.repeat(20) })
  assert.ok(Buffer.compare(hourStartKey(472_222), key) < 0)
  assert.ok(Buffer.compare(encodeHourKey(472_221, Buffer.alloc(20, 0xff)), hourStartKey(472_222)) < 0)
})

test('amount keys written into a batch buffer are the bytes the encoders make (a rollback removes them by the encoders)', () => {
  const pk = encodePk(19_000_001, 7)
  const out = Buffer.alloc(200, 0x5a)
  for (const token of [dictionaryIdKey(0), dictionaryIdKey(127), dictionaryIdKey(128), dictionaryIdKey(2 ** 30)]) {
    for (const amount of [0n, 1n, 255n, 256n, 65_535n, 65_536n, 0xff_ffffn, 0x100_0000n, 0xffff_ffffn, 0x1_0000_0000n, 2n ** 255n + 12_345n]) {
      const end = writeAmountEntryKey(out, 9, token, amount, pk)
      assert.deepEqual(out.subarray(9, end), encodeAmountEntryKey(token, amount, pk), `amount ${amount}`)
    }
    const end = writeAmountClassKey(out, 1, token, 0x0102_0304, pk)
    assert.deepEqual(out.subarray(1, end), encodeAmountClassKey(token, 0x0102_0304, pk))
  }
})

test("no token's id key is the prefix of another's, so a token's amount keys are one range", () => {
  const keys = [0, 1, 127, 128, 129, 16_383, 16_384, 2 ** 21, 2 ** 28, 2 ** 35 - 1].map((id) => dictionaryIdKey(id))
  for (const a of keys) for (const b of keys) if (a !== b) assert.ok(!b.subarray(0, a.length).equals(a), `${a.toString('hex')} / ${b.toString('hex')}`)
})
