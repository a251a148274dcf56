/**
 * Exports take turns on the server thread: each export that can write is queued, and one turn of the
 * event loop writes at most `chunksPerTurn` chunks of all of them together, one chunk per export in
 * queue order, the next turn going on where this one stopped. So a turn costs the same bounded work
 * whether one export runs or two hundred, other requests are served between turns, and N fast readers
 * share the thread evenly (each gets about 1/N of it) instead of each taking a full slice per turn.
 */
export type ExportStep = () => boolean

export class ExportTurns {
  #queue: ExportStep[] = []
  #head = 0
  #scheduled = false

  /** `chunksPerTurn`: chunks all exports together may write per turn of the event loop. */
  constructor(readonly chunksPerTurn: number) {}

  /** Queues `step` (one chunk of one export), which answers whether it wants another turn at once. */
  add(step: ExportStep): void {
    this.#queue.push(step)
    this.#schedule()
  }

  get waiting(): number {
    return this.#queue.length - this.#head
  }

  #turn = () => {
    this.#scheduled = false
    for (let budget = this.chunksPerTurn; budget > 0 && this.#head < this.#queue.length; budget--) {
      const step = this.#queue[this.#head++]!
      if (step()) this.#queue.push(step)
    }
    // Compacted once the consumed part dominates: the queue stays as long as the exports waiting.
    if (this.#head > 1024 && this.#head * 2 > this.#queue.length) {
      this.#queue = this.#queue.slice(this.#head)
      this.#head = 0
    }
    if (this.waiting > 0) this.#schedule()
  }

  #schedule(): void {
    if (this.#scheduled) return
    this.#scheduled = true
    setImmediate(this.#turn)
  }
}
