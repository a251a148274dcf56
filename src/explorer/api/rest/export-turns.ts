/**
 * Exports take turns on the server thread: each export that can write is queued, and one turn of the
 * event loop writes chunks of all of them together for at most `turnMs` (one chunk at least), one chunk
 * per export in queue order, the next turn going on where this one stopped. So a turn costs the same
 * bounded time whether one export runs or two hundred, on a fast machine or a loaded one; other
 * requests are served between turns, and N fast readers share the thread evenly (each about 1/N of
 * it) instead of each taking a full slice per turn. An idle thread runs turns back to back: a lone
 * export goes as fast as before.
 */
export type ExportStep = () => boolean

export class ExportTurns {
  #queue: ExportStep[] = []
  #head = 0
  #scheduled = false

  /** `turnMs`: how long all exports together may write per turn of the event loop. */
  constructor(readonly turnMs: number) {}

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
    const until = performance.now() + this.turnMs
    do {
      const step = this.#queue[this.#head++]!
      if (step()) this.#queue.push(step)
    } while (this.#head < this.#queue.length && performance.now() < until)
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
