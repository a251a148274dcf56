/**
 * Reconnect delays: doubling from `initialDelayMs` up to `maxDelayMs`, each drawn at random from its upper
 * half so that many clients dropped at once by a restarting explorer do not come back in lockstep.
 */
import type { ReconnectOptions } from '../types.js'

export const DEFAULT_RECONNECT: Required<ReconnectOptions> = { initialDelayMs: 250, maxDelayMs: 10_000 }

export function reconnectDelay(attempt: number, options: Required<ReconnectOptions>, random: () => number = Math.random): number {
  const ceiling = Math.min(options.maxDelayMs, options.initialDelayMs * 2 ** Math.min(attempt, 30))
  return Math.round(ceiling / 2 + (ceiling / 2) * random())
}
