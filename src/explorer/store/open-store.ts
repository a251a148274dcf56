/**
 * Opens the LMDB environment: the primary database of settlements plus one dupsort index per
 * filterable field, the recipients' runs that hold the records, the dictionary of ids, the time index, block hashes (for reorg checks),
 * token metadata, running stats and the indexer's position. The same function opens it in the main
 * thread and in query workers; lmdb-js shares one environment between the threads of a process.
 */
import { open, type Database, type RootDatabase } from 'lmdb'
import { encodeBareHexKey, fieldIndexKey } from './keys.js'
import { fieldHex, type StoredSettlement } from './record.js'

/**
 * Dupsort values are raw bytes compared bytewise; lmdb-js needs `writeKey` to seek within them.
 * Values are 10–14 bytes and lmdb-js reuses its read buffer, so each is copied out by hand into a
 * pooled small Buffer: measurably cheaper per value than Buffer.copyBytesFrom on the query hot path.
 */
const rawBytes = {
  encode: (value: Buffer) => value,
  // lmdb-js's `get` passes its shared read buffer without a size: its `length` property (set by
  // lmdb-js) is the value's, `byteLength` the whole buffer's (16 MB), which each get then copied.
  decode(bytes: Uint8Array, size = bytes.length) {
    const copy = Buffer.allocUnsafe(size)
    for (let i = 0; i < size; i++) copy[i] = bytes[i]!
    return copy
  },
  writeKey(key: Buffer, target: Uint8Array, position: number) {
    target.set(key, position)
    return position + key.length
  },
  readKey: (target: Uint8Array, start: number, end: number) => Buffer.from(target.subarray(start, end)),
}

/**
 * `selfPayment` is not a settlement field: it holds only self-payments (payer = recipient), by that
 * address. The `address` filter reads the payer and recipient indexes, where a self-payment is in
 * both, and this one to count it once; a separate address index would cost two more puts per
 * settlement, and puts are what bounds ingest (bench/RESULTS.md).
 */
export const INDEXED_FIELDS = ['token', 'recipient', 'payer', 'orderReference', 'acquirerId', 'txHash', 'selfPayment'] as const
export type IndexedField = (typeof INDEXED_FIELDS)[number]

/**
 * Fields whose values repeat across many settlements carry ordinals in their index values (exact
 * totals in two seeks). Order references and transaction hashes are nearly unique, so their entries
 * are the bare primary key and their (tiny) totals are counted.
 */
const COUNTED = new Set<IndexedField>(['token', 'recipient', 'payer', 'acquirerId', 'selfPayment'])
export const hasOrdinals = (field: IndexedField) => COUNTED.has(field)

/** The keys a settlement is indexed under, per field: one, or none in `selfPayment` for a payment to another address. */
export function indexKeysOf(field: IndexedField, s: StoredSettlement): Buffer[] {
  if (field !== 'selfPayment') return [fieldIndexKey(field, encodeBareHexKey(fieldHex(s, field)))]
  const payer = fieldHex(s, 'payer')
  return payer === fieldHex(s, 'recipient') ? [encodeBareHexKey(payer)] : []
}

export interface Store {
  env: RootDatabase
  /** primary key → where its record is: recipient id ‖ ordinal in the recipient index (keys.ts). */
  events: Database<Buffer, Buffer>
  indexes: Record<IndexedField, Database<Buffer, Buffer>>
  /** recipient id ‖ run number → that run of the recipient's settlements, their records (covering-runs.ts). */
  runs: Database<Buffer, Buffer>
  /** timestamp ‖ block → empty, one entry per block with settlements. */
  times: Database<Buffer, Buffer>
  /** block → block hash, for blocks with settlements and each indexed head: the reorg check. */
  blocks: Database<Buffer, Buffer>
  tokens: Database<unknown, Buffer>
  stats: Database<unknown, Buffer>
  hours: Database<unknown, Buffer>
  /** Statistics buckets per field value, hour and token (buckets.ts). */
  buckets: Database<unknown, Buffer>
  meta: Database<unknown, string>
  /** Ids of tokens, domain separators and recipients (dictionary.ts). */
  ids: Database<Buffer, Buffer>
  close(): Promise<void>
}

export interface StoreOptions {
  path: string
  /** Skip fsync on commit: still safe against a killed process, not against power loss. */
  noSync?: boolean
  mapSizeBytes?: number
  /** Another process's store, read beside it (a snapshot of a serving explorer). */
  readOnly?: boolean
}

export function openStore({ path, noSync = false, mapSizeBytes = 64 * 1024 ** 3, readOnly = false }: StoreOptions): Store {
  const env = open({ path, compression: false, noSync, mapSize: mapSizeBytes, maxDbs: 32, maxReaders: 1024, readOnly })
  const binary = { keyEncoding: 'binary', encoding: 'binary' } as const
  const dupsort = (name: string) =>
    env.openDB<Buffer, Buffer>(name, { keyEncoding: 'binary', dupSort: true, encoder: rawBytes } as never)
  const indexes = Object.fromEntries(INDEXED_FIELDS.map((field) => [field, dupsort(`idx:${field}`)])) as Store['indexes']
  return {
    env,
    events: env.openDB<Buffer, Buffer>('events', binary),
    indexes,
    runs: env.openDB<Buffer, Buffer>('runs', binary),
    times: env.openDB<Buffer, Buffer>('times', binary),
    blocks: env.openDB<Buffer, Buffer>('blocks', binary),
    tokens: env.openDB<unknown, Buffer>('tokens', { keyEncoding: 'binary' }),
    stats: env.openDB<unknown, Buffer>('stats', { keyEncoding: 'binary' }),
    hours: env.openDB<unknown, Buffer>('hours', { keyEncoding: 'binary' }),
    buckets: env.openDB<unknown, Buffer>('buckets', { keyEncoding: 'binary' }),
    meta: env.openDB<unknown, string>('meta', {}),
    ids: env.openDB<Buffer, Buffer>('ids', binary),
    close: () => env.close(),
  }
}
