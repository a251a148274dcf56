/** Fan-out at 3,000 subscribers on the main thread alone (fanout-scale.ts). */
import { fanoutScale } from './fanout-scale.js'

fanoutScale()
