/**
 * A layout-6 store, read: the only layout an explorer before layout 7 wrote that holds settlements
 * (meta.ts `LAYOUT_ADDITIONS`). Its primary database holds each settlement's whole record in the form
 * record.ts still decodes (a msgpack array with the fixed fields as one 156-byte run), its block hashes,
 * tokens and position sit where layout 7 keeps them: that is all a conversion reads.
 */
import { open, type Database, type RootDatabase } from 'lmdb'
import { decodeHexKey, encodeBlockKey, decodeRecord, StoreError, type IndexedHead, type SettlementRecord, type StoreIdentity, type TokenInfo } from '../store/index.js'
import type { Hex } from '../../wire/index.js'

export interface Layout6Store {
  env: RootDatabase
  events: Database<Buffer, Buffer>
  blocks: Database<Buffer, Buffer>
  tokens: Database<unknown, Buffer>
  meta: Database<unknown, string>
}

/** Read-only, beside the older explorer that may still be serving from it. */
export function openLayout6(path: string): Layout6Store {
  const env = open({ path, readOnly: true, compression: false, maxDbs: 32, maxReaders: 1024 })
  const binary = { keyEncoding: 'binary', encoding: 'binary' } as const
  return {
    env,
    events: env.openDB<Buffer, Buffer>('events', binary),
    blocks: env.openDB<Buffer, Buffer>('blocks', binary),
    tokens: env.openDB<unknown, Buffer>('tokens', { keyEncoding: 'binary' }),
    meta: env.openDB<unknown, string>('meta', {}),
  }
}

export const layoutOf = (store: Layout6Store) => (store.meta.get('layout') as number | undefined) ?? 1
export const countOf = (store: Layout6Store) => (store.meta.get('count') as number | undefined) ?? 0
export const headOf = (store: Layout6Store) => store.meta.get('head') as IndexedHead | undefined
export const identityOf = (store: Layout6Store) => store.meta.get('identity') as StoreIdentity | undefined
export const tokensOf = (store: Layout6Store) => [...store.tokens.getRange()].map(({ value }) => value as TokenInfo)

/** A block with settlements always has its hash stored beside them: one missing is a damaged store, not a zero hash. */
function blockHashOf(store: Layout6Store, blockNumber: number): Hex {
  const hash = store.blocks.getBinary(encodeBlockKey(blockNumber))
  if (!hash) throw new StoreError(`the layout-6 store has settlements in block ${blockNumber} but not its hash`)
  return decodeHexKey(hash)
}

/** Every settlement from the primary key `from` on, in chain order, as the indexer hands them to the store. */
export function* settlementsFrom(store: Layout6Store, from: Buffer): Generator<SettlementRecord> {
  // Settlements come in chain order: a block's hash is read once, at its first settlement.
  let block = -1
  let blockHash = '0x' as Hex
  for (const { key, value } of store.events.getRange({ start: from })) {
    const s = decodeRecord(key, value)
    if (s.blockNumber !== block) [block, blockHash] = [s.blockNumber, blockHashOf(store, s.blockNumber)]
    const h = s.hex
    yield {
      blockNumber: s.blockNumber,
      logIndex: s.logIndex,
      blockHash,
      timestamp: s.timestamp,
      txHash: `0x${h.slice(0, 64)}`,
      token: `0x${h.slice(64, 104)}`,
      payer: `0x${h.slice(104, 144)}`,
      recipient: `0x${h.slice(144, 184)}`,
      amount: BigInt(s.amount),
      fee: BigInt(s.fee),
      reference: `0x${h.slice(184, 248)}`,
      domainSeparator: `0x${h.slice(248, 312)}`,
    }
  }
}
