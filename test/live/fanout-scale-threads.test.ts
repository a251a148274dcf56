/**
 * Fan-out at 3,000 subscribers on three server threads (fanout-scale.ts): the kernel spreads the
 * connections over the threads, each hub fed the main thread's reports; a replay's `since` and a late
 * subscription land on whichever thread holds their connection.
 */
import { fanoutScale } from './fanout-scale.js'

fanoutScale({ SERVER_THREADS: '3' })
