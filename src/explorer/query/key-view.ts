/**
 * Every settlement of one field value (one recipient, payer, …): positions in chain order, and their
 * JSON rendered newest first into one buffer, comma after each, with free room before the newest. A
 * new settlement is always newer than all before it (primary keys only grow), so it goes into that
 * room and nothing else moves; a run of consecutive settlements, newest first, is one range of bytes.
 */
import type { Position } from '../store/index.js'

const INITIAL_ROOM = 16 * 1024

export class KeyView {
  readonly id: string
  #json = Buffer.allocUnsafe(INITIAL_ROOM)
  /** Where the newest settlement starts; the room is json[0, #head). */
  #head = INITIAL_ROOM
  /** Where the oldest settlement's JSON ends (no comma after it). */
  #end = INITIAL_ROOM
  /** Chain order: position, and where its JSON starts. */
  #blocks = new Float64Array(16)
  #logIndexes = new Uint32Array(16)
  #starts = new Uint32Array(16)
  #count = 0

  constructor(id: string) {
    this.id = id
  }

  get count(): number {
    return this.#count
  }

  /** Bytes held. */
  get bytes(): number {
    return this.#json.length
  }

  position(i: number): Position {
    return { blockNumber: this.#blocks[i]!, logIndex: this.#logIndexes[i]! }
  }

  /** How many settlements lie before a position. */
  before(at: Position): number {
    let low = 0
    let high = this.#count
    while (low < high) {
      const mid = (low + high) >>> 1
      const b = this.#blocks[mid]!
      if (b < at.blockNumber || (b === at.blockNumber && this.#logIndexes[mid]! < at.logIndex)) low = mid + 1
      else high = mid
    }
    return low
  }

  /** The JSON of settlements `from` down to `to` (chain order indexes, from ≥ to), newest first, comma separated. */
  run(from: number, to: number): [json: Buffer, start: number, end: number] {
    return [this.#json, this.#starts[from]!, to === 0 ? this.#end : this.#starts[to - 1]! - 1]
  }

  /** Adds a settlement newer than every one held, rendered as `json`. */
  prepend(at: Position, json: Buffer): void {
    const needed = json.length + (this.#count > 0 ? 1 : 0)
    if (needed > this.#head) this.#makeRoom(needed)
    if (this.#count > 0) this.#json[--this.#head] = 0x2c
    this.#head -= json.length
    json.copy(this.#json, this.#head)
    if (this.#count === 0) this.#end = this.#head + json.length
    this.#push(at, this.#head)
  }

  #push(at: Position, start: number): void {
    if (this.#count === this.#blocks.length) {
      const grow = <T extends Float64Array | Uint32Array>(a: T, make: (n: number) => T) => {
        const bigger = make(a.length * 2)
        bigger.set(a)
        return bigger
      }
      this.#blocks = grow(this.#blocks, (n) => new Float64Array(n))
      this.#logIndexes = grow(this.#logIndexes, (n) => new Uint32Array(n))
      this.#starts = grow(this.#starts, (n) => new Uint32Array(n))
    }
    this.#blocks[this.#count] = at.blockNumber
    this.#logIndexes[this.#count] = at.logIndex
    this.#starts[this.#count] = start
    this.#count++
  }

  /** A larger buffer with the settlements at its end: every offset moves by the added room. */
  #makeRoom(needed: number): void {
    const room = Math.max(needed, this.#json.length)
    const bigger = Buffer.allocUnsafe(this.#json.length + room)
    this.#json.copy(bigger, room)
    this.#json = bigger
    this.#head += room
    this.#end += room
    for (let i = 0; i < this.#count; i++) this.#starts[i] = this.#starts[i]! + room
  }
}
