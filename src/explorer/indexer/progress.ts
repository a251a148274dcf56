/**
 * Backfill progress: position, rate and ETA, logged at most every `everyMs` while far from the head.
 */
import type { Logger } from '../../platform/observability/index.js'

export class Progress {
  #startedAt = performance.now()
  #startBlock: number
  #lastLogAt = 0
  #settlements = 0

  constructor(
    private readonly logger: Logger,
    startBlock: number,
    private readonly everyMs = 2000,
  ) {
    this.#startBlock = startBlock
  }

  step(block: number, target: number, settlements: number): void {
    this.#settlements += settlements
    const now = performance.now()
    if (now - this.#lastLogAt < this.everyMs) return
    this.#lastLogAt = now
    const seconds = (now - this.#startedAt) / 1000
    const blocksPerSecond = (block - this.#startBlock) / seconds
    this.logger.info('backfill', {
      block,
      target,
      percent: Math.round(((block - this.#startBlock) / Math.max(1, target - this.#startBlock)) * 1000) / 10,
      settlements: this.#settlements,
      settlementsPerSecond: Math.round(this.#settlements / seconds),
      etaSeconds: blocksPerSecond > 0 ? Math.round((target - block) / blocksPerSecond) : null,
    })
  }

  summary(): { seconds: number; settlements: number; settlementsPerSecond: number } {
    const seconds = (performance.now() - this.#startedAt) / 1000
    return { seconds, settlements: this.#settlements, settlementsPerSecond: Math.round(this.#settlements / seconds) }
  }
}
