/** The devnet flags shared by `npm run devnet` and `npm start`. */
import { numberFlag } from '../../platform/cli/index.js'

export interface StartDevnetOptions {
  host: string
  port: number
  /** Seconds per block; 0 = automine (a block per transaction). */
  blockTime: number
  payers: number
  /** The deployment file to write; config's DEFAULT_DEPLOYMENT_PATH when absent (not imported here: config loads viem). */
  deploymentPath?: string | undefined
}

export const devnetOptions = {
  host: { type: 'string' },
  port: { type: 'string' },
  'block-time': { type: 'string' },
  payers: { type: 'string' },
  out: { type: 'string' },
} as const

export const devnetUsage = `  --host <ip>           anvil listen address (127.0.0.1)
  --port <n>            anvil port, 0 = a free one (8545)
  --block-time <s>      seconds per block, 0 = a block per transaction (1)
  --payers <n>          funded test payers (20)
  --out <path>          deployment file to write (.data/deployment.json)`

export function devnetOptionsFromFlags(values: Partial<Record<keyof typeof devnetOptions, string>>): StartDevnetOptions {
  return {
    host: values.host ?? '127.0.0.1',
    port: numberFlag(values.port, 'port', 8545, 0, 65535),
    blockTime: numberFlag(values['block-time'], 'block-time', 1, 0, 3600),
    payers: numberFlag(values.payers, 'payers', 20, 1, 10_000),
    deploymentPath: values.out,
  }
}
