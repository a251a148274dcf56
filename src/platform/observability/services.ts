import type { Logger } from './logger.js'
import type { Metrics } from './metrics.js'

/**
 * What a piece is handed rather than imports: where it logs and, for a server, the registry its
 * `/metrics` serves (without one, each piece builds its own, prefixed with its name).
 */
export interface Services {
  log: Logger
  metrics?: Metrics
}
