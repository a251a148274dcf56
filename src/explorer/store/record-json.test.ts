import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import type { Hex } from '../../wire/settlement.js'
import { commitBatch } from './commit-batch.js'
import { readRecord } from './covering-runs.js'
import { encodePk } from './keys.js'
import { openStore, type Store } from './open-store.js'
import { recordJson, tokenFieldsJson, writeRecordJson, type TokenSource } from './record-json.js'
import { settlementJson, toStored, type SettlementRecord, type TokenInfo } from './record.js'

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
    domainSeparator: hex(32, (i % 4) + 7),
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

/** Commits `records` (in chain order, one block each) to a new store and runs `check` on it. */
async function withRecords(records: SettlementRecord[], check: (store: Store) => void): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'explorer-record-json-'))
  const store = openStore({ path: dir, noSync: true })
  try {
    const blocks = records.map((r) => ({ blockNumber: r.blockNumber, blockHash: r.blockHash, timestamp: r.timestamp }))
    const last = records.at(-1)!
    await commitBatch(store, { records, blocks, head: { blockNumber: last.blockNumber, blockHash: last.blockHash } })
    check(store)
  } finally {
    await store.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

/** Each record read back from the store renders as `settlementJson` renders the record itself. */
function expectSame(store: Store, records: SettlementRecord[], tokens: TokenSource): void {
  for (const r of records) {
    const stored = toStored(r, 1)
    const expected = settlementJson(stored, tokens.get(stored.hex.slice(64, 104)))
    const pk = encodePk(r.blockNumber, r.logIndex)
    assert.equal(recordJson(pk, readRecord(store, pk)!, tokens, store).toString('utf8'), expected)
    JSON.parse(expected)
  }
}

test('each stored settlement is written byte for byte as settlementJson writes it, at every integer and string width', async () => {
  const tokens = tokenSource(tokensOf(['USDC', 'EURC', 'DAI']))
  const records = Array.from({ length: 300 }, (_, i) => record(i))
  await withRecords(records, (store) => {
    expectSame(store, records, tokens)
    // Twice: the second time every token and domain separator is rendered from what the first left.
    expectSame(store, records, tokens)
  })
  const extremes: Partial<SettlementRecord>[] = [
    { blockNumber: 2 ** 48 - 2, logIndex: 2 ** 32 - 1, timestamp: 2 ** 32 - 1 },
    { blockNumber: 0, logIndex: 0, timestamp: 0, amount: 0n, fee: 0n },
    { blockNumber: 5_000_000_001, logIndex: 2 ** 31 },
    { amount: 2n ** 256n - 1n, fee: 2n ** 256n - 1n },
    { timestamp: 127 },
    { timestamp: 65_536 },
  ]
  for (const [i, overrides] of extremes.entries()) {
    const r = record(i, overrides)
    await withRecords([r], (store) => expectSame(store, [r], tokens))
  }
})

test('symbols that need escaping or are not ASCII, and tokens first met after the thread loaded its cache', async () => {
  const infos = tokensOf(['"quoted"\\', 'Ünïcødé €', ''])
  const records = [0, 1, 2, 3].map((i) => record(i))
  await withRecords(records, (store) => expectSame(store, records, tokenSource(infos)))
  const late = tokenSource(infos, [])
  await withRecords(records, (store) => expectSame(store, records, late))
  assert.ok(late.gets > 0)
  await withRecords(records, (store) => expectSame(store, records, tokenSource([], [])))
})

test('a buffer too small is left alone (-1)', async () => {
  const tokens = tokenSource(tokensOf(['A-VERY-LONG-SYMBOL-'.repeat(20), 'B', 'C']))
  const r = record(0)
  await withRecords([r], (store) => {
    const pk = encodePk(r.blockNumber, r.logIndex)
    const small = Buffer.alloc(300, 0x2e)
    assert.equal(writeRecordJson(small, 10, pk, readRecord(store, pk)!, tokens, store), -1)
    assert.ok(small.every((b) => b === 0x2e))
    expectSame(store, [r], tokens)
  })
})
