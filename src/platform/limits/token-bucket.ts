/**
 * A token bucket: `perSecond` refill up to `burst`. Each `take` that finds a whole token spends it.
 * Time is passed in (milliseconds), so callers that already read the clock do not read it again.
 */
export interface RateLimit {
  perSecond: number
  burst: number
}

export class TokenBucket {
  #tokens: number
  #refilledAt: number

  constructor(
    private readonly limit: RateLimit,
    now: number,
  ) {
    this.#tokens = limit.burst
    this.#refilledAt = now
  }

  take(now: number): boolean {
    const { perSecond, burst } = this.limit
    this.#tokens = Math.min(burst, this.#tokens + ((now - this.#refilledAt) * perSecond) / 1000)
    this.#refilledAt = now
    if (this.#tokens < 1) return false
    this.#tokens -= 1
    return true
  }

  /** Full again by `now`: a bucket kept per client may be forgotten without handing out a fresh burst. */
  isFull(now: number): boolean {
    return this.#tokens + ((now - this.#refilledAt) * this.limit.perSecond) / 1000 >= this.limit.burst
  }
}
