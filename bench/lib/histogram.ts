/**
 * A latency histogram with 1 µs buckets up to one second (above that, exact values are kept): cheap
 * enough to record every request of a load run, exact enough for p999.
 */
const BUCKETS = 1_000_000

export interface Percentiles {
  count: number
  p50: number
  p90: number
  p99: number
  p999: number
  max: number
}

export class Histogram {
  #buckets = new Uint32Array(BUCKETS)
  #over: number[] = []
  count = 0

  /** Records a duration in milliseconds. */
  record(ms: number): void {
    const us = Math.max(0, Math.round(ms * 1000))
    if (us < BUCKETS) this.#buckets[us]!++
    else this.#over.push(us)
    this.count++
  }

  merge(other: Histogram): void {
    for (let i = 0; i < BUCKETS; i++) this.#buckets[i]! += other.#buckets[i]!
    this.#over.push(...other.#over)
    this.count += other.count
  }

  /** Percentiles in milliseconds. */
  percentiles(): Percentiles {
    const over = [...this.#over].sort((a, b) => a - b)
    const at = (q: number) => {
      const rank = Math.ceil(q * this.count)
      let seen = 0
      for (let i = 0; i < BUCKETS; i++) {
        seen += this.#buckets[i]!
        if (seen >= rank) return i / 1000
      }
      return (over[rank - seen - 1] ?? over[over.length - 1] ?? 0) / 1000
    }
    if (this.count === 0) return { count: 0, p50: 0, p90: 0, p99: 0, p999: 0, max: 0 }
    let max = over[over.length - 1]
    if (max === undefined) for (let i = BUCKETS - 1; i >= 0; i--) if (this.#buckets[i]) { max = i; break }
    return { count: this.count, p50: at(0.5), p90: at(0.9), p99: at(0.99), p999: at(0.999), max: (max ?? 0) / 1000 }
  }
}
