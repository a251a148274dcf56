/**
 * Covering runs: every settlement's record copied a second time, beside its recipient's others, in
 * runs of RUN_LENGTH by its ordinal in the recipient index (keys.ts). A recipient's page is then one
 * index seek for the ordinal at its cursor and one or two reads of adjacent bytes, where through the
 * primary database it is twenty reads scattered over the whole store — on a store larger than the
 * CPU's caches each a cold B-tree descent (bench/RESULTS.md, any recipient, any page). It costs about
 * 274 bytes per settlement at 1M and about 9 µs of commit CPU (each run touched is rewritten whole,
 * once per transaction).
 *
 * Kept in step with the recipient index by the same transactions: a commit appends (commit-batch.ts),
 * a rollback cuts each touched recipient's runs back to its remaining count (rollback.ts).
 */
import { encodeRunKey, indexKeyFromString, RUN_ENTRY_HEAD_BYTES, RUN_LENGTH, runEntryAt, runEntryStarts, runOf, writeRunEntryHead } from './keys.js'
import type { Store } from './open-store.js'

/** One settlement for the runs: its recipient (latin1 string of the key's bytes), ordinal in it, primary key and record. */
export interface RunAppend {
  recipient: string
  ordinal: number
  pk: Uint8Array
  record: Uint8Array
}

/** Appends settlements to their recipients' runs, inside the write transaction; each recipient's in ordinal order. */
export function appendToRuns(store: Store, settlements: RunAppend[]): void {
  const runs = new Map<string, { key: Buffer; parts: Uint8Array[] }>()
  for (const { recipient, ordinal, pk, record } of settlements) {
    const run = runOf(ordinal)
    const id = `${recipient}${run}`
    let pending = runs.get(id)
    if (!pending) {
      const key = encodeRunKey(indexKeyFromString(recipient), run)
      // A run already begun by an earlier commit is read back and rewritten with the new entries.
      const starts = (ordinal - 1) % RUN_LENGTH === 0
      const begun = starts ? undefined : store.runs.getBinary(key)
      if (!starts && !begun) {
        // Entries are found by their position in a run: appending to a lost one would misplace every later settlement.
        throw new Error(`covering run ${run} of recipient 0x${indexKeyFromString(recipient).toString('hex')} is missing before ordinal ${ordinal}`)
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
export function truncateRuns(store: Store, recipient: Buffer, count: number): void {
  const kept = count === 0 ? -1 : runOf(count)
  const past = [...store.runs.getKeys({ start: encodeRunKey(recipient, kept + 1), end: encodeRunKey(recipient, 0xffff_ffff) })]
  for (const key of past) store.runs.removeSync(key)
  const keep = count - kept * RUN_LENGTH
  if (kept < 0 || keep === RUN_LENGTH) return
  const key = encodeRunKey(recipient, kept)
  const run = store.runs.getBinary(key)!
  store.runs.putSync(key, run.subarray(0, runEntryStarts(run)[keep]))
}

/**
 * The run a reader holds, copied out of lmdb-js's shared read buffer (which the next read of any
 * database overwrites) into this thread's one scratch buffer: no allocation per run.
 */
let scratch = Buffer.allocUnsafeSlow(8192)

function readRun(store: Store, key: Buffer): Buffer | undefined {
  const bytes = store.runs.getBinaryFast(key)
  if (!bytes) return undefined
  if (bytes.length > scratch.length) scratch = Buffer.allocUnsafeSlow(bytes.length * 2)
  scratch.set(bytes.subarray(0, bytes.length))
  return scratch.subarray(0, bytes.length)
}

/**
 * Reads a recipient's settlements by ordinal from its runs, holding the last run read: the walk of a
 * page reads each run once. What it returns is valid until the next run is read, by it or by another
 * reader on this thread.
 */
export class RunReader {
  #store: Store
  #recipient: Buffer
  #run = -1
  #bytes: Buffer | undefined
  #starts: number[] = []

  constructor(store: Store, recipient: Buffer) {
    this.#store = store
    this.#recipient = recipient
  }

  /** The settlement with this ordinal, or undefined past the recipient's last. */
  at(ordinal: number): { pk: Buffer; record: Buffer } | undefined {
    if (ordinal < 1) return undefined
    const run = runOf(ordinal)
    if (run !== this.#run) {
      this.#run = run
      this.#bytes = readRun(this.#store, encodeRunKey(this.#recipient, run))
      this.#starts = this.#bytes ? runEntryStarts(this.#bytes) : []
    }
    const at = this.#starts[(ordinal - 1) % RUN_LENGTH]
    return at === undefined ? undefined : runEntryAt(this.#bytes!, at)
  }
}
