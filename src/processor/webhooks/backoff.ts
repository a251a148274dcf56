/**
 * When a failed delivery is tried again: exponential from `baseMs`, doubling per attempt up to `maxMs`,
 * with "equal jitter" (a random half on top of a fixed half) so replicas and merchants recovering
 * together do not retry in lockstep, while the delay never drops below half the nominal one.
 */
export interface BackoffSettings {
  baseMs: number
  maxMs: number
}

/** The delay after the `attempt`-th failed attempt (1 = the first). */
export function retryDelayMs(attempt: number, { baseMs, maxMs }: BackoffSettings, random: () => number = Math.random): number {
  const nominal = Math.min(maxMs, baseMs * 2 ** Math.min(attempt - 1, 40))
  return Math.round(nominal / 2 + (random() * nominal) / 2)
}
