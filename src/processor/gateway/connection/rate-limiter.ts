/**
 * A connection's message budget: a token bucket (`perSecond` refill, `burst` capacity) decides whether
 * a message is served; the refusals within a 10 s window decide whether the client is abusive (it keeps
 * sending far past its budget after being told), which closes the connection.
 */
export interface RateLimits {
  messagesPerSecond: number
  messageBurst: number
  abuseThreshold: number
}

export type RateDecision = 'serve' | 'refuse' | 'abuse'

const ABUSE_WINDOW_MS = 10_000

export class RateLimiter {
  #tokens: number
  #refilledAt: number
  #windowStart = 0
  #refusals = 0

  constructor(
    private readonly limits: RateLimits,
    now: number,
  ) {
    this.#tokens = limits.messageBurst
    this.#refilledAt = now
  }

  take(now: number): RateDecision {
    const { messagesPerSecond, messageBurst, abuseThreshold } = this.limits
    this.#tokens = Math.min(messageBurst, this.#tokens + ((now - this.#refilledAt) * messagesPerSecond) / 1000)
    this.#refilledAt = now
    if (this.#tokens >= 1) {
      this.#tokens -= 1
      return 'serve'
    }
    if (now - this.#windowStart > ABUSE_WINDOW_MS) {
      this.#windowStart = now
      this.#refusals = 0
    }
    return ++this.#refusals > abuseThreshold ? 'abuse' : 'refuse'
  }
}
