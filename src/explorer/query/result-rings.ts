/**
 * How a worker hands a page back without a new ArrayBuffer per answer. Posted or moved, every answer
 * arrives on the server thread as fresh external memory; at thousands of pages a second that drives
 * V8 into frequent full collections of the server's large heap (caches, views): measured, garbage
 * collection was about half of the server thread's time with every query in the pool.
 *
 * Instead each worker owns a ring of fixed slots in shared memory: it writes the page into a free slot
 * and answers with the slot's number; the server thread copies the page out (into its slab of pages,
 * page-writer.ts) and frees the slot. A slot still held, or a page larger than a slot, falls back to
 * posting the page: nothing is ever overwritten before it is read.
 */
import { slabCopy } from './page-writer.js'

export const SLOTS = 128
/** A page of 100 settlements is about 60 KB; larger answers (long series) are posted instead. */
export const SLOT_BYTES = 128 * 1024

export interface ResultRingsData {
  /** One per worker: SLOTS × SLOT_BYTES of pages, and SLOTS flags (1 while a slot holds an unread page). */
  pages: SharedArrayBuffer[]
  held: SharedArrayBuffer[]
  /** Workers take their ring in the order they start (a replacement shares one: slots are claimed atomically). */
  claims: SharedArrayBuffer
}

/** A worker's answer: a page in its ring, the page itself, or nothing (a lookup that found none). */
export type RingAnswer = { ring: number; slot: number; length: number } | Uint8Array | undefined

/** The server thread's side: rings to give the workers, and `take` to turn an answer into a page. */
export function createResultRings(workers: number) {
  const data: ResultRingsData = {
    pages: Array.from({ length: workers }, () => new SharedArrayBuffer(SLOTS * SLOT_BYTES)),
    held: Array.from({ length: workers }, () => new SharedArrayBuffer(SLOTS * 4)),
    claims: new SharedArrayBuffer(4),
  }
  const pages = data.pages.map((ring) => new Uint8Array(ring))
  const held = data.held.map((flags) => new Int32Array(flags))
  return {
    data,
    /** The page, in this thread's memory; its slot is free again. */
    take(answer: RingAnswer): Uint8Array | undefined {
      if (answer === undefined || answer instanceof Uint8Array) return answer
      const start = answer.slot * SLOT_BYTES
      const page = slabCopy(pages[answer.ring]!.subarray(start, start + answer.length))
      Atomics.store(held[answer.ring]!, answer.slot, 0)
      return page
    },
  }
}

/** A worker's side: writes answers into the ring it claims. */
export class RingWriter {
  #ring: number
  #pages: Uint8Array
  #held: Int32Array
  #next = 0

  constructor(data: ResultRingsData) {
    this.#ring = Atomics.add(new Int32Array(data.claims), 0, 1) % data.pages.length
    this.#pages = new Uint8Array(data.pages[this.#ring]!)
    this.#held = new Int32Array(data.held[this.#ring]!)
  }

  answer(result: Uint8Array | undefined): RingAnswer {
    if (result === undefined) return undefined
    const slot = this.#next
    // Claimed before writing: a worker Piscina starts in place of a failed one may share this ring.
    if (result.length > SLOT_BYTES || Atomics.compareExchange(this.#held, slot, 0, 1) !== 0) {
      // The page is a view of a larger slab (page-writer.ts), which posting would copy whole: its own copy.
      return Uint8Array.prototype.slice.call(result)
    }
    this.#pages.set(result, slot * SLOT_BYTES)
    this.#next = (slot + 1) % SLOTS
    return { ring: this.#ring, slot, length: result.length }
  }
}
