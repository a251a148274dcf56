/**
 * RSS of each process over the soak, sampled from /proc every few seconds, and the verdict on whether it
 * stayed flat: after a first minute of warm-up, the median of the last third of the samples against the
 * median of the first third. A restarted process (the explorer, the submitter) is sampled under the
 * same name across its lives; a restart only ever lowers its RSS. A process whose memory is meant to grow
 * (the devnet node holds the chain) is sampled and shown but not judged.
 */
export interface RssSample {
  /** Seconds since the start. */
  t: number
  bytes: number
}

export interface RssVerdict {
  name: string
  earlyMedianMb: number
  lateMedianMb: number
  maxMb: number
  flat: boolean
  /** False for a process shown for information only. */
  judged: boolean
}

const MB = 1024 * 1024
/** Growth allowed between the early and the late median: allocator noise, caches warming, heap sizing. */
const ALLOWED_GROWTH = 1.25
const ALLOWED_GROWTH_MB = 16
const WARM_UP_SECONDS = 60

export class RssSampler {
  readonly samples = new Map<string, RssSample[]>()
  readonly #started = Date.now()
  #timer: ReturnType<typeof setInterval> | undefined

  constructor(
    private readonly sources: Record<string, () => number | undefined>,
    private readonly unjudged: readonly string[] = [],
  ) {}

  start(intervalMs: number): void {
    this.sample()
    this.#timer = setInterval(() => this.sample(), intervalMs)
  }

  stop(): void {
    clearInterval(this.#timer)
  }

  sample(): void {
    const t = (Date.now() - this.#started) / 1000
    for (const [name, read] of Object.entries(this.sources)) {
      const bytes = read()
      if (bytes === undefined) continue
      const list = this.samples.get(name) ?? []
      list.push({ t, bytes })
      this.samples.set(name, list)
    }
  }

  verdicts(): RssVerdict[] {
    return [...this.samples].map(([name, all]) => {
      const warm = all.filter((s) => s.t >= WARM_UP_SECONDS)
      const used = warm.length >= 6 ? warm : all
      const third = Math.max(1, Math.floor(used.length / 3))
      const early = median(used.slice(0, third).map((s) => s.bytes)) / MB
      const late = median(used.slice(-third).map((s) => s.bytes)) / MB
      return {
        name,
        earlyMedianMb: round(early),
        lateMedianMb: round(late),
        maxMb: round(Math.max(...all.map((s) => s.bytes)) / MB),
        flat: late <= early * ALLOWED_GROWTH + ALLOWED_GROWTH_MB,
        judged: !this.unjudged.includes(name),
      }
    })
  }

  /** Per minute: each process's highest sample in MB. */
  perMinute(): { minute: number; mb: Record<string, number> }[] {
    const rows = new Map<number, Record<string, number>>()
    for (const [name, list] of this.samples) {
      for (const s of list) {
        const minute = Math.floor(s.t / 60)
        const row = rows.get(minute) ?? {}
        row[name] = Math.max(row[name] ?? 0, round(s.bytes / MB))
        rows.set(minute, row)
      }
    }
    return [...rows].sort(([a], [b]) => a - b).map(([minute, mb]) => ({ minute, mb }))
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] ?? 0
}

const round = (x: number) => Math.round(x * 10) / 10
