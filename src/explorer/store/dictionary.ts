/**
 * Small numbers for values that repeat across settlements (layout 7): a token address (20 bytes), a
 * domain separator (32) and a recipient (20) are stored once here and as a short id everywhere else —
 * in records, in the recipients' runs and in the primary database's pointers. A store holds a handful of
 * tokens and domain separators and thousands of recipients, against millions of settlements.
 *
 * Ids are given inside the indexing transaction and never taken back (a rollback leaves them: an unused
 * id costs a few bytes). Each thread keeps what it has read; a reader that meets an id it has not seen
 * reads it from the store, where the transaction that wrote the record wrote the id too.
 */
import { DICTIONARY_KINDS, encodeDictionaryKey, encodeDictionaryIdKey, type DictionaryKind } from './keys.js'
import type { Store } from './open-store.js'
import { StoreError } from './store-error.js'

interface Entries {
  /** By the value's bytes as a latin1 string (`indexKeyString`). */
  ids: Map<string, number>
  /** By id. */
  values: Buffer[]
  /** By id, as lowercase hex: what readers render and compare (made when first asked). */
  hex: string[]
  /** Every entry of the store is in `ids` (the writer's view, loaded whole once). */
  complete: boolean
}

const dictionaries = new WeakMap<Store, Record<DictionaryKind, Entries>>()

function entriesOf(store: Store, kind: DictionaryKind): Entries {
  let perKind = dictionaries.get(store)
  if (!perKind) {
    const empty = () => ({ ids: new Map(), values: [], hex: [], complete: false })
    dictionaries.set(store, (perKind = { token: empty(), domain: empty(), recipient: empty() }))
  }
  return perKind[kind]
}

/** A failed write transaction may have given ids it never stored: what this thread remembers starts over. */
export function forgetDictionary(store: Store): void {
  dictionaries.delete(store)
}

function loadAll(store: Store, entries: Entries, kind: DictionaryKind): void {
  const prefix = encodeDictionaryKey(kind, Buffer.alloc(0))
  const end = encodeDictionaryKey(DICTIONARY_KINDS[kind] + 1, Buffer.alloc(0))
  for (const { key, value } of store.ids.getRange({ start: prefix, end })) {
    const id = (value as Buffer).readUInt32BE(0)
    const bytes = Buffer.from((key as Buffer).subarray(1))
    entries.ids.set(bytes.toString('latin1'), id)
    entries.values[id] = bytes
  }
  entries.complete = true
}

/**
 * The id of a value (its bytes as a latin1 string), given now if it has none; inside the caller's
 * write transaction.
 */
export function idOf(store: Store, kind: DictionaryKind, value: string): number {
  const entries = entriesOf(store, kind)
  if (!entries.complete) loadAll(store, entries, kind)
  let id = entries.ids.get(value)
  if (id !== undefined) return id
  id = entries.ids.size
  const bytes = Buffer.from(value, 'latin1')
  const idBytes = Buffer.allocUnsafe(4)
  idBytes.writeUInt32BE(id, 0)
  store.ids.putSync(encodeDictionaryKey(kind, bytes), idBytes)
  store.ids.putSync(encodeDictionaryIdKey(kind, id), bytes)
  entries.ids.set(value, id)
  entries.values[id] = bytes
  return id
}

/** The id a value has, or undefined (a reader's question: nothing is written). */
export function findId(store: Store, kind: DictionaryKind, value: Uint8Array): number | undefined {
  const entries = entriesOf(store, kind)
  const key = Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('latin1')
  const known = entries.ids.get(key)
  if (known !== undefined) return known
  const stored = store.ids.getBinary(encodeDictionaryKey(kind, value))
  if (!stored) return undefined
  const id = stored.readUInt32BE(0)
  entries.ids.set(key, id)
  entries.values[id] = Buffer.from(value)
  return id
}

/** The bytes an id stands for. Throws for an id the store never gave: the record reading it is corrupt. */
export function valueOf(store: Store, kind: DictionaryKind, id: number): Buffer {
  const entries = entriesOf(store, kind)
  const known = entries.values[id]
  if (known) return known
  const stored = store.ids.getBinary(encodeDictionaryIdKey(kind, id))
  if (!stored) throw new StoreError(`the store has no ${kind} with id ${id}`)
  const bytes = Buffer.from(stored)
  entries.values[id] = bytes
  entries.ids.set(bytes.toString('latin1'), id)
  return bytes
}

/** The value an id stands for as lowercase hex without 0x (`valueOf`, converted once per thread). */
export function hexOf(store: Store, kind: DictionaryKind, id: number): string {
  const entries = entriesOf(store, kind)
  return (entries.hex[id] ??= valueOf(store, kind, id).toString('hex'))
}
