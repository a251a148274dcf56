/** The data service (PROCESSOR.md §1): the processor's public configuration directory, read from the chain. */
export { startDataService, type DataServiceServices, type RunningDataService } from './start-data-service.js'
