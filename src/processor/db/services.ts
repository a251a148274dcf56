import type { Services } from '../../platform/observability/index.js'
import type { Database } from './open-database.js'

/** What every processor piece is handed: the shared database beside the logger and metrics. */
export interface ProcessorServices extends Services {
  db: Database
}
