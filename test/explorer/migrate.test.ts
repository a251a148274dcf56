/**
 * Moving a layout-6 store to layout 7 without losing service (issue 39): `migrateStore` reads the old
 * store beside the explorer serving from it and writes a new one that is, database by database, the
 * store an explorer indexing the same settlements from the chain would have written; a conversion
 * started again goes on from where it stopped (and takes what the old explorer indexed meanwhile); the
 * old directory is left as it was, and an explorer meeting it names the command.
 */
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { open } from 'lmdb'
import { explorerOptionsFromEnv } from '../../src/config/index.js'
import { migrateStore } from '../../src/explorer/migrate/index.js'
import { startExplorer } from '../../src/explorer/index.js'
import {
  claimIdentity,
  commitEncoded,
  encodeBatch,
  encodeBlockKey,
  encodeHexKey,
  encodePk,
  encodeRecord,
  openStore,
  toStored,
  type IndexingStep,
  type Store,
} from '../../src/explorer/store/index.js'
import { createLogger } from '../../src/platform/observability/index.js'
import { storeContentHash, syntheticSteps, tempDataDir } from '../../src/devnet/testing/index.js'

const COUNT = 100_000
const identity = { chainId: 31337, contract: `0x${'5e'.repeat(20)}` as const }
const steps = [...syntheticSteps(COUNT, { recipients: 400, payers: 3000 })]
const tokenInfos = [...new Set(steps.flatMap((s) => s.records.map((r) => r.token)))].map((address, i) => ({ address, symbol: `TK${i}`, decimals: 6 }))

/** A layout-6 store as an explorer before layout 7 left it: whole records in the primary database (msgpack), block hashes, tokens, its position. */
async function writeLayout6(path: string, upTo: number): Promise<void> {
  const env = open({ path, compression: false, maxDbs: 32 })
  const binary = { keyEncoding: 'binary', encoding: 'binary' } as const
  const events = env.openDB<Buffer, Buffer>('events', binary)
  const blocks = env.openDB<Buffer, Buffer>('blocks', binary)
  const tokenDb = env.openDB<unknown, Buffer>('tokens', { keyEncoding: 'binary' })
  const meta = env.openDB<unknown, string>('meta', {})
  env.transactionSync(() => {
    let ordinal = (meta.get('count') as number | undefined) ?? 0
    const from = (meta.get('head') as { blockNumber: number } | undefined)?.blockNumber ?? -1
    for (const step of steps.slice(0, upTo)) {
      if (step.head.blockNumber <= from) continue
      for (const r of step.records) events.putSync(encodePk(r.blockNumber, r.logIndex), encodeRecord(toStored(r, ++ordinal)))
      blocks.putSync(encodeBlockKey(step.head.blockNumber), encodeHexKey(step.head.blockHash))
    }
    for (const token of tokenInfos) tokenDb.putSync(encodeHexKey(token.address), token)
    meta.putSync('count', ordinal)
    meta.putSync('head', steps[upTo - 1]!.head)
    meta.putSync('layout', 6)
    meta.putSync('identity', identity)
  })
  await env.close()
}


/** The store an explorer indexing the same settlements from the chain writes. */
async function indexedDirectly(path: string): Promise<string> {
  const store = openStore({ path, noSync: true })
  await claimIdentity(store, identity)
  for (let i = 0; i < steps.length; i += 500) {
    const group: IndexingStep[] = steps.slice(i, i + 500)
    await commitEncoded(store, group.map((s) => encodeBatch(s.records, s.blocks, s.head)), i === 0 ? tokenInfos : [])
  }
  const digest = storeContentHash(store)
  await store.close()
  return digest
}

test(`a layout-6 store of ${COUNT} settlements converts into the store indexing them writes, in two runs, leaving the old one as it was`, async () => {
  const [old, converted, direct] = [tempDataDir(), tempDataDir(), tempDataDir()]
  const lines: string[] = []
  const log = createLogger('info', {}, (line) => lines.push(line) > 0)
  try {
    // The old explorer had indexed 60 % when the conversion first ran, and went on meanwhile.
    await writeLayout6(old, Math.floor(steps.length * 0.6))
    const first = await migrateStore({ from: old, to: converted, log })
    assert.ok(first.settlements > 0 && first.settlements < COUNT, `${first.settlements} converted in the first run`)
    await writeLayout6(old, steps.length)
    const before = createHash('sha256').update(readFileSync(join(old, 'data.mdb'))).digest('hex')
    const second = await migrateStore({ from: old, to: converted, log })
    assert.equal(second.settlements, COUNT)
    assert.deepEqual(second.head, steps.at(-1)!.head)
    assert.equal(createHash('sha256').update(readFileSync(join(old, 'data.mdb'))).digest('hex'), before, 'the old store is left as it was')
    assert.ok(lines.some((line) => JSON.parse(line).msg === 'migrate: done' && JSON.parse(line).settlements === COUNT), lines.join(''))

    const store = openStore({ path: converted, readOnly: true })
    const migrated = storeContentHash(store)
    await store.close()
    assert.equal(migrated, await indexedDirectly(direct), 'the converted store equals, database by database, one indexed directly')

    const options = explorerOptionsFromEnv({ SETTLEMENT_CONTRACT: identity.contract, RPC_URL: 'http://127.0.0.1:9', DATA_DIR: old, EXPLORER_PORT: '0', QUERY_WORKERS: '0', LOG_LEVEL: 'silent' })
    await assert.rejects(startExplorer(options), /store layout 6\b.*npm run explorer -- migrate <dir>/)
  } finally {
    for (const dir of [old, converted, direct]) rmSync(dir, { recursive: true, force: true })
  }
})

test('a store of another layout, or a directory of other files, is refused with a message', async () => {
  const [old, other] = [tempDataDir(), tempDataDir()]
  const log = createLogger('silent')
  try {
    await writeLayout6(old, 10)
    const env = open({ path: old, maxDbs: 32 })
    await env.openDB('meta', {}).put('layout', 5)
    await assert.rejects(migrateStore({ from: old, to: other, log }), /store layout 5: only layout 6 converts/)
    await env.openDB('meta', {}).put('layout', 6)
    writeFileSync(join(other, 'notes.txt'), 'not a store')
    await assert.rejects(migrateStore({ from: old, to: other, log }), /holds other files/)
    await env.close()
  } finally {
    for (const dir of [old, other]) rmSync(dir, { recursive: true, force: true })
  }
})
