/**
 * One token bucket per client address, for a rate of actions (not connections) per address. A bucket
 * that has refilled is forgotten on the next sweep (forgetting it hands out nothing more than a full
 * bucket would), so memory follows the addresses active in the last refill period, and a flood from
 * many addresses is swept at most once per `sweepEvery` takes. The address is the client's key from
 * platform/http clientAddress (X-Forwarded-For behind TRUSTED_PROXIES, IPv6 by /64).
 */
import { TokenBucket, type RateLimit } from './token-bucket.js'

export class BucketsPerAddress {
  readonly #buckets = new Map<string, TokenBucket>()
  #takes = 0

  constructor(
    readonly limit: RateLimit,
    readonly sweepEvery = 1_000,
  ) {}

  /** Whether `address` may act now (spending one token). */
  take(address: string, now: number): boolean {
    if (++this.#takes % this.sweepEvery === 0) this.sweep(now)
    let bucket = this.#buckets.get(address)
    if (!bucket) this.#buckets.set(address, (bucket = new TokenBucket(this.limit, now)))
    return bucket.take(now)
  }

  /** Seconds until `address` has a whole token again (at least 1). */
  retryAfterSeconds(): number {
    return Math.max(1, Math.ceil(1 / this.limit.perSecond))
  }

  get size(): number {
    return this.#buckets.size
  }

  sweep(now: number): void {
    for (const [address, bucket] of this.#buckets) if (bucket.isFull(now)) this.#buckets.delete(address)
  }
}
