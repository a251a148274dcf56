/**
 * Which merchants' endpoints answered slowly the last time this worker called them (an answer, an error
 * or a timeout that took `slowMs` or more): their next events go to the slow lane from the start instead
 * of holding one of the worker's slots first. It is a scheduling hint kept per worker, not state: a
 * merchant dropped from it (past `MAX_REMEMBERED`, the oldest first) or unknown to another replica only
 * holds a slot for `slowMs` before its request moves to the slow lane.
 */

/** Bounds the memory and the list each claim sends to PostgreSQL. */
const MAX_REMEMBERED = 1_000

export interface SlowMerchants {
  /** Records how long the merchant's endpoint took to answer (or fail). */
  answered(merchantId: string, durationMs: number): void
  list(): string[]
}

export function createSlowMerchants(slowMs: number): SlowMerchants {
  const slow = new Set<string>()
  return {
    answered(merchantId, durationMs) {
      slow.delete(merchantId)
      if (durationMs < slowMs) return
      slow.add(merchantId)
      if (slow.size > MAX_REMEMBERED) slow.delete(slow.values().next().value!)
    },
    list: () => [...slow],
  }
}
