/**
 * What all live connections hold unsent, against LIVE_MAX_TOTAL_BUFFERED_BYTES. The per-connection bound
 * alone lets connections × bound pile up (20,000 never-reading replays × 2 MiB before they pause). The
 * hub notes a connection's unsent bytes whenever it reads them (after each publish step and replay
 * chunk, and all of them when the total looks past the budget), so the total is the sum of the latest
 * readings. `slowSince` is when a connection was first seen holding bytes and not seen empty since: past
 * the budget, the connections that have held bytes longest are closed first.
 */
export type SlowBound = 'connection' | 'total'

export interface BudgetedConnection {
  /** Unsent bytes now. */
  buffered(): number
  /** The budget's bookkeeping: the latest reading, and since when (ms) the connection has held bytes. */
  bufferedSeen: number
  slowSince: number | undefined
}

export class BufferBudget {
  #total = 0

  constructor(readonly max: number) {}

  get total(): number {
    return this.#total
  }

  get over(): boolean {
    return this.#total > this.max
  }

  /** Reads and records a connection's unsent bytes; returns them. */
  note(conn: BudgetedConnection, now: number): number {
    const bytes = conn.buffered()
    this.#total += bytes - conn.bufferedSeen
    conn.bufferedSeen = bytes
    if (bytes === 0) conn.slowSince = undefined
    else conn.slowSince ??= now
    return bytes
  }

  /** The connection is closing: what it holds no longer counts. */
  forget(conn: BudgetedConnection): void {
    this.#total -= conn.bufferedSeen
    conn.bufferedSeen = 0
    conn.slowSince = undefined
  }

  /** Connections holding unsent bytes, those that have held them longest first. */
  slowestFirst<T extends BudgetedConnection>(conns: Iterable<T>): T[] {
    return [...conns].filter((c) => c.slowSince !== undefined).sort((a, b) => a.slowSince! - b.slowSince!)
  }
}
