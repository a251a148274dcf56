/**
 * A connection's message budget: a token bucket (`perSecond` refill, `burst` capacity) of its own and
 * the one its client address shares with its other connections decide whether a message is served; the
 * refusals within a 10 s window decide whether the client is abusive (it keeps sending far past its
 * budget after being told), which closes the connection.
 */
import { TokenBucket } from '../../../platform/limits/index.js'

export interface RateLimits {
  messagesPerSecond: number
  messageBurst: number
  abuseThreshold: number
}

export type RateDecision = 'serve' | 'refuse' | 'abuse'

const ABUSE_WINDOW_MS = 10_000

export class RateLimiter {
  #bucket: TokenBucket
  #windowStart = 0
  #refusals = 0

  constructor(
    private readonly limits: RateLimits,
    now: number,
    private readonly addressBudget: TokenBucket,
  ) {
    this.#bucket = new TokenBucket({ perSecond: limits.messagesPerSecond, burst: limits.messageBurst }, now)
  }

  take(now: number): RateDecision {
    if (this.#bucket.take(now) && this.addressBudget.take(now)) return 'serve'
    if (now - this.#windowStart > ABUSE_WINDOW_MS) {
      this.#windowStart = now
      this.#refusals = 0
    }
    return ++this.#refusals > this.limits.abuseThreshold ? 'abuse' : 'refuse'
  }
}
