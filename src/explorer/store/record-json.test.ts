import assert from 'node:assert/strict'
import { test } from 'node:test'
import { Packr } from 'msgpackr'
import type { Hex } from '../../wire/settlement.js'
import { encodePk } from './keys.js'
import { recordJson, tokenFieldsJson, writeRecordJson, type TokenSource } from './record-json.js'
import { encodeRecord, settlementJson, toStored, type SettlementRecord, type TokenInfo } from './record.js'

const hex = (bytes: number, seed: number) => `0x${Array.from({ length: bytes }, (_, i) => ((seed * 31 + i * 17) & 0xff).toString(16).padStart(2, '0')).join('')}` as Hex

function record(i: number, overrides: Partial<SettlementRecord> = {}): SettlementRecord {
  return {
    blockNumber: 1000 + i,
    logIndex: i % 7,
    blockHash: hex(32, i + 1),
    timestamp: 1_700_000_000 + i,
    txHash: hex(32, i + 2),
    token: hex(20, i % 3),
    payer: hex(20, i + 4),
    recipient: hex(20, i + 5),
    amount: BigInt(i) * 10n ** BigInt(i % 30),
    fee: BigInt(i % 5),
    reference: hex(32, i + 6),
    domainSeparator: hex(32, i + 7),
    ...overrides,
  }
}

/** Token metadata as a thread's TokenCache holds it: `known` answer from memory, the rest only through `get`. */
function tokenSource(infos: TokenInfo[], known = infos): TokenSource & { gets: number } {
  const byHex = new Map(infos.map((t) => [t.address.slice(2), t]))
  const fields = new Map(known.map((t) => [t.address.slice(2), tokenFieldsJson(t)]))
  return {
    gets: 0,
    get(addressHex) {
      this.gets++
      return byHex.get(addressHex) ?? { address: `0x${addressHex}`, symbol: '', decimals: 0 }
    },
    fieldsJson(bytes, offset) {
      return fields.get(Buffer.from(bytes.subarray(offset, offset + 20)).toString('hex'))
    },
  }
}

const tokensOf = (symbols: string[]) => symbols.map((symbol, i) => ({ address: hex(20, i), symbol, decimals: 6 + i }))

/** What lmdb-js's getBinaryFast returns: a large reused buffer whose own `length` is the value's. */
function asReadBuffer(value: Buffer): Buffer {
  const shared = Buffer.alloc(8192, 0xff)
  value.copy(shared)
  Object.defineProperty(shared, 'length', { value: value.length, writable: true, configurable: true })
  return shared
}

function expectSame(r: SettlementRecord, tokens: TokenSource, value = encodeRecord(toStored(r, 1 + r.blockNumber))): void {
  const stored = toStored(r, 1)
  const expected = settlementJson(stored, tokens.get(stored.hex.slice(64, 104)))
  const pk = encodePk(r.blockNumber, r.logIndex)
  assert.equal(recordJson(pk, value, tokens).toString('utf8'), expected)
  assert.equal(recordJson(pk, asReadBuffer(value), tokens).toString('utf8'), expected)
  JSON.parse(expected)
}

test('each settlement is written byte for byte as settlementJson writes it, at every integer and string width', () => {
  const tokens = tokenSource(tokensOf(['USDC', 'EURC', 'DAI']))
  for (let i = 0; i < 300; i++) expectSame(record(i), tokens)
  const extremes: Partial<SettlementRecord>[] = [
    { blockNumber: 2 ** 48 - 2, logIndex: 2 ** 32 - 1, timestamp: 2 ** 32 - 1 },
    { blockNumber: 0, logIndex: 0, timestamp: 0, amount: 0n, fee: 0n },
    { amount: 2n ** 256n - 1n, fee: 2n ** 256n - 1n },
    { timestamp: 127 },
    { timestamp: 128 },
    { timestamp: 255 },
    { timestamp: 65_535 },
    { timestamp: 65_536 },
  ]
  for (const [i, overrides] of extremes.entries()) expectSame(record(i, overrides), tokens)
  for (const ordinal of [1, 127, 128, 255, 256, 65_535, 65_536, 2 ** 32 - 1]) {
    const r = record(ordinal % 3)
    expectSame(r, tokens, encodeRecord(toStored(r, ordinal)))
  }
})

test('symbols that need escaping or are not ASCII, and tokens first met after the thread loaded its cache', () => {
  const infos = tokensOf(['"quoted"\\', 'Ünïcødé €', ''])
  expectSame(record(0), tokenSource(infos))
  expectSame(record(1), tokenSource(infos))
  const late = tokenSource(infos, [])
  expectSame(record(2), late)
  assert.ok(late.gets > 0)
  expectSame(record(3), tokenSource([], []))
})

test('a buffer too small is left alone (-1); a record in another msgpack form is decoded the slow way', () => {
  const tokens = tokenSource(tokensOf(['A-VERY-LONG-SYMBOL-'.repeat(20), 'B', 'C']))
  const r = record(0)
  const value = encodeRecord(toStored(r, 1))
  const small = Buffer.alloc(300, 0x2e)
  assert.equal(writeRecordJson(small, 10, encodePk(r.blockNumber, r.logIndex), value, tokens), -1)
  assert.ok(small.every((b) => b === 0x2e))
  expectSame(r, tokens)

  // The same array as array16 instead of fixarray: valid msgpack this reader does not take by hand.
  const stored = toStored(r, 9)
  const packed = new Packr({ useRecords: false, moreTypes: false }).pack([stored.timestamp, stored.ordinal, stored.amount, stored.fee, Buffer.from(stored.hex, 'hex')])
  const array16 = Buffer.concat([Buffer.from([0xdc, 0x00, 0x05]), packed.subarray(1)])
  expectSame(r, tokens, array16)
})
