/**
 * A table of settlements that live arrivals enter at the top. Arrivals are held and drawn once per
 * animation frame, as one fragment, whatever their rate; the table keeps at most `cap` rows (the oldest
 * leave at the bottom), and so does the queue, so a hidden or paused tab holds no more than a screen's worth.
 */
import type { Settlement } from '../../../../wire/index.js'
import { settlementKey } from './format.js'
import { settlementRow, strikeRow } from './settlement-row.js'

const HIGHLIGHT_AT_MOST = 5

export class LiveTable {
  #pending: Settlement[] = []
  #paused = false
  #frame: number | undefined
  readonly #rows = new Map<string, HTMLTableRowElement>()

  constructor(
    private readonly body: HTMLTableSectionElement,
    private readonly cap: number,
    /** Told how many arrivals wait while paused. */
    private readonly onWaiting: (count: number) => void = () => {},
  ) {}

  /** A live arrival; they come in chain order, so each is the newest yet. */
  push(settlement: Settlement): void {
    this.#pending.push(settlement)
    if (this.#pending.length > this.cap) this.#pending.splice(0, this.#pending.length - this.cap)
    if (this.#paused) this.onWaiting(this.#pending.length)
    else this.#schedule()
  }

  /** Older settlements, newest first, below what is shown (a page read under the live stream). */
  append(settlements: Settlement[]): void {
    for (const settlement of settlements) {
      const key = settlementKey(settlement)
      if (this.#rows.has(key) || this.#pending.some((p) => settlementKey(p) === key)) continue
      const row = settlementRow(settlement)
      this.#rows.set(key, row)
      this.body.append(row)
    }
  }

  /** A reorg took `settlement` back: its row is struck out, or it never shows. */
  remove(settlement: Settlement): void {
    const key = settlementKey(settlement)
    this.#pending = this.#pending.filter((p) => settlementKey(p) !== key)
    const row = this.#rows.get(key)
    if (row) strikeRow(row)
  }

  setPaused(paused: boolean): void {
    this.#paused = paused
    if (!paused) this.#schedule()
  }

  get size(): number {
    return this.#rows.size
  }

  #schedule(): void {
    this.#frame ??= requestAnimationFrame(() => this.#draw())
  }

  #draw(): void {
    this.#frame = undefined
    if (this.#paused || this.#pending.length === 0) return
    const fragment = document.createDocumentFragment()
    // A few arrivals are highlighted; a burst is not, as a hundred animated rows would be repainted every frame.
    const highlight = this.#pending.length <= HIGHLIGHT_AT_MOST
    for (let i = this.#pending.length - 1; i >= 0; i--) {
      const settlement = this.#pending[i]!
      const key = settlementKey(settlement)
      if (this.#rows.has(key)) continue
      const row = settlementRow(settlement)
      if (highlight) row.classList.add('arrived')
      this.#rows.set(key, row)
      fragment.append(row)
    }
    this.#pending = []
    this.body.prepend(fragment)
    while (this.#rows.size > this.cap && this.body.lastElementChild) {
      const last = this.body.lastElementChild as HTMLTableRowElement
      this.#rows.delete(last.dataset.key ?? '')
      last.remove()
    }
    this.onWaiting(0)
  }
}
