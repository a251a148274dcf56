/**
 * Open connections counted across threads, for caps that hold for a whole process whose connections
 * several threads accept (the explorer's server threads): a total, and per address a count-min sketch
 * in shared memory — each address adds to one counter in each of two rows, found by two hashes, and its
 * count is the smaller of the two. A count is never under the truth; it is over it only when both of an
 * address's counters are shared with addresses that together hold the cap: at 65,536 counters a row
 * (512 KB) and the default caps (20,000 connections, 256 per address) that needs busy addresses in both
 * of its slots. Exact per address is what ConnectionsPerAddress gives a single thread.
 */
const ROW = 65_536
const TOTAL = 0

/** The shared memory, created once and handed to every thread. */
export const sharedConnectionsMemory = () => new SharedArrayBuffer((1 + 2 * ROW) * 4)

export class SharedConnections {
  readonly #counts: Int32Array

  constructor(
    memory: SharedArrayBuffer,
    readonly maxTotal: number,
    readonly maxPerAddress: number,
  ) {
    this.#counts = new Int32Array(memory)
  }

  /** Why one more connection from `address` is refused: the total's cap, or the address's; `undefined`: within both. */
  refusal(address: string): 'server' | 'address' | undefined {
    if (Atomics.load(this.#counts, TOTAL) >= this.maxTotal) return 'server'
    const [a, b] = slots(address)
    return Math.min(Atomics.load(this.#counts, a), Atomics.load(this.#counts, b)) >= this.maxPerAddress ? 'address' : undefined
  }

  get total(): number {
    return Atomics.load(this.#counts, TOTAL)
  }

  add(address: string): void {
    this.#change(address, 1)
  }

  remove(address: string): void {
    this.#change(address, -1)
  }

  #change(address: string, by: number): void {
    const [a, b] = slots(address)
    Atomics.add(this.#counts, TOTAL, by)
    Atomics.add(this.#counts, a, by)
    Atomics.add(this.#counts, b, by)
  }
}

/** The address's counter in each row: the low and high halves of a 32-bit FNV-1a hash, mixed (murmur3's finalizer). */
function slots(address: string): [number, number] {
  let h = 0x811c9dc5
  for (let i = 0; i < address.length; i++) h = Math.imul(h ^ address.charCodeAt(i), 0x01000193)
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b)
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35)
  h = (h ^ (h >>> 16)) >>> 0
  return [1 + (h & (ROW - 1)), 1 + ROW + (h >>> 16)]
}
