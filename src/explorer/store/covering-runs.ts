/**
 * Records in runs: every settlement's record, beside its recipient's others, in runs of RUN_LENGTH by
 * its ordinal in the recipient index (keys.ts). A recipient's page is then one index seek for the
 * ordinal at its cursor and one or two reads of adjacent bytes, where through the primary database it
 * would be twenty reads scattered over the whole store (bench/RESULTS.md, any recipient, any page).
 * Since layout 7 the runs are the only copy of a record: the primary database holds, per primary key,
 * the recipient id and ordinal that find it here (`readRecord`).
 *
 * Kept in step with the recipient index by the same transactions: a commit appends (commit-batch.ts),
 * a rollback cuts each touched recipient's runs back to its remaining count (rollback.ts).
 */
import type { Transaction } from 'lmdb'
import { decodePointer, encodeRunKey, RUN_ENTRY_HEAD_BYTES, RUN_LENGTH, runEntryAt, runEntryRecordBytes, runEntryStart, runEntryStarts, runNumber, runOf, writeRunEntryHead } from './keys.js'
import type { Store } from './open-store.js'
import { findId } from './dictionary.js'
import { decodeStored } from './compact-record.js'
import type { StoredSettlement } from './record.js'
import { StoreError } from './store-error.js'

/** One settlement for the runs: its recipient's id, ordinal in it, primary key and stored record. */
export interface RunAppend {
  recipientId: number
  ordinal: number
  pk: Uint8Array
  record: Uint8Array
}

/** Appends settlements to their recipients' runs, inside the write transaction; each recipient's in ordinal order. */
export function appendToRuns(store: Store, settlements: RunAppend[]): void {
  const runs = new Map<number, { key: Buffer; parts: Uint8Array[] }>()
  for (const { recipientId, ordinal, pk, record } of settlements) {
    const run = runOf(ordinal)
    const id = runNumber(recipientId, run)
    let pending = runs.get(id)
    if (!pending) {
      const key = encodeRunKey(recipientId, run)
      // A run already begun by an earlier commit is read back and rewritten with the new entries.
      const starts = (ordinal - 1) % RUN_LENGTH === 0
      const begun = starts ? undefined : store.runs.getBinary(key)
      if (!starts && !begun) {
        // Entries are found by their position in a run: appending to a lost one would misplace every later settlement.
        throw new StoreError(`run ${run} of recipient id ${recipientId} is missing before ordinal ${ordinal}`)
      }
      runs.set(id, (pending = { key, parts: begun ? [begun] : [] }))
    }
    const head = Buffer.allocUnsafe(RUN_ENTRY_HEAD_BYTES)
    writeRunEntryHead(head, 0, pk, record.length)
    pending.parts.push(head, record)
  }
  for (const { key, parts } of runs.values()) store.runs.putSync(key, Buffer.concat(parts))
}

/** Cuts a recipient's runs back to its first `count` settlements (a rollback), inside the write transaction. */
export function truncateRuns(store: Store, recipientId: number, count: number): void {
  const kept = count === 0 ? -1 : runOf(count)
  const past = [...store.runs.getKeys({ start: encodeRunKey(recipientId, kept + 1), end: encodeRunKey(recipientId, 0xffff_ffff) })]
  for (const key of past) store.runs.removeSync(key)
  const keep = count - kept * RUN_LENGTH
  if (kept < 0 || keep === RUN_LENGTH) return
  const key = encodeRunKey(recipientId, kept)
  const run = store.runs.getBinary(key)!
  store.runs.putSync(key, run.subarray(0, runEntryStart(run, keep)))
}

type ReadOptions = { transaction?: Transaction }
// lmdb-js reads in the transaction given (read.js); its typings omit the options argument.
type GetBinaryFast = (key: Buffer, options?: ReadOptions) => Buffer | undefined

/**
 * A buffer of this thread that bytes are copied into out of lmdb-js's shared read buffer, which the
 * next read of any database overwrites; grown when too small, so that a copy allocates nothing.
 */
export class HeldBytes {
  #buffer: Buffer

  constructor(bytes: number) {
    this.#buffer = Buffer.allocUnsafeSlow(bytes)
  }

  /** A copy of `bytes`, valid until the next `hold`. */
  hold(bytes: Uint8Array): Buffer {
    // lmdb-js's read buffer is larger than the value: its `length` is the value's.
    if (bytes.length > this.#buffer.length) this.#buffer = Buffer.allocUnsafeSlow(2 * bytes.length)
    this.#buffer.set(bytes.subarray(0, bytes.length))
    return this.#buffer.subarray(0, bytes.length)
  }
}

const held = new HeldBytes(512)

/**
 * The stored record (compact-record.ts) of a settlement by its primary key, or undefined when there is
 * none; read in `transaction` when given (an export's snapshot). Copied out of lmdb-js's shared read
 * buffer, which the next read of any database overwrites: valid until the next record is read on this thread.
 */
export function readRecord(store: Store, pk: Buffer, transaction?: Transaction): Buffer | undefined {
  const options = transaction ? { transaction } : undefined
  const pointer = (store.events.getBinaryFast as GetBinaryFast).call(store.events, pk, options)
  if (!pointer) return undefined
  const { recipientId, ordinal } = decodePointer(pointer)
  const run = (store.runs.getBinaryFast as GetBinaryFast).call(store.runs, encodeRunKey(recipientId, runOf(ordinal)), options)
  const at = run && runEntryStart(run, (ordinal - 1) % RUN_LENGTH)
  if (!run || at === undefined) throw new StoreError(`the record of settlement ${pk.toString('hex')} is missing from run ${runOf(ordinal)} of recipient id ${recipientId}`)
  const start = at + RUN_ENTRY_HEAD_BYTES
  return held.hold(run.subarray(start, start + runEntryRecordBytes(run, at)))
}

/** A settlement by its primary key, decoded for the filters (`decodeStored`), or undefined when there is none. */
export function readSettlement(store: Store, pk: Buffer, transaction?: Transaction): StoredSettlement | undefined {
  const record = readRecord(store, pk, transaction)
  return record && decodeStored(store, pk, record)
}

/**
 * The run a reader holds, copied out of lmdb-js's shared read buffer (which the next read of any
 * database overwrites) into this thread's one scratch buffer: no allocation per run. `scratchHolder`
 * is the reader whose run is there: another reader's read takes it over, and the first reads again.
 */
const scratch = new HeldBytes(8192)
let scratchHolder: RunReader | undefined

function readRun(store: Store, key: Buffer, holder: RunReader): Buffer | undefined {
  scratchHolder = holder
  const bytes = store.runs.getBinaryFast(key)
  return bytes && scratch.hold(bytes)
}

/**
 * Reads a recipient's settlements by ordinal from its runs, holding the last run read: the walk of a
 * page reads each run once. `at` moves it to a settlement; `pk` and `record()` are that settlement's,
 * valid until the next run is read, by it or by another reader on this thread. (One object
 * for every settlement, not one each: under tsx every closure made per settlement cost a name.)
 */
export class RunReader {
  #store: Store
  #recipientId: number | undefined
  #run = -1
  #bytes: Buffer | undefined
  #starts: number[] = []
  #record: Buffer | undefined
  /** The primary key of the settlement `at` moved to. */
  pk: Buffer = Buffer.alloc(0)

  /** `recipient`: the address's 20 bytes. */
  constructor(store: Store, recipient: Buffer) {
    this.#store = store
    this.#recipientId = findId(store, 'recipient', recipient)
  }

  /** Moves to the settlement with this ordinal; undefined past the recipient's last. */
  at(ordinal: number): this | undefined {
    if (ordinal < 1 || this.#recipientId === undefined) return undefined
    const run = runOf(ordinal)
    if (run !== this.#run || scratchHolder !== this) {
      this.#run = run
      this.#bytes = readRun(this.#store, encodeRunKey(this.#recipientId, run), this)
      this.#starts = this.#bytes ? runEntryStarts(this.#bytes) : []
    }
    const at = this.#starts[(ordinal - 1) % RUN_LENGTH]
    if (at === undefined) return undefined
    const { pk, record } = runEntryAt(this.#bytes!, at)
    this.pk = pk
    this.#record = record
    return this
  }

  /** The settlement's stored record (compact-record.ts), valid until the next run is read. */
  record(): Buffer {
    return this.#record!
  }
}
