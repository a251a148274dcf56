/**
 * The data service's options (PROCESSOR.md §1), built once from the environment: the chain it reads
 * (the devnet's deployment fills in on chain 31337), where it listens, and the public URLs it announces.
 */
import type { Deployment } from '../wire/index.js'
import type { LogLevel } from './parse-env.js'
import { chainSettingsFromEnv, pollIntervalSetting, type ChainSettings } from './chain-settings.js'
import { intSetting, logLevelSetting, stringSetting, type Env } from './parse-env.js'
import { publicUrlsFromEnv, type PublicUrls } from './public-urls.js'

export interface DataServiceOptions extends ChainSettings {
  host: string
  port: number
  /** How often the contract's logs are polled for admin events. */
  pollIntervalMs: number
  logLevel: LogLevel
  urls: PublicUrls
}

export function dataServiceOptionsFromEnv(env: Env = process.env, deployment?: Deployment): DataServiceOptions {
  const chain = chainSettingsFromEnv(env, deployment)
  return {
    ...chain,
    host: stringSetting(env, 'DATA_SERVICE_HOST', '127.0.0.1'),
    port: intSetting(env, 'DATA_SERVICE_PORT', 4002, 0, 65535),
    pollIntervalMs: pollIntervalSetting(env, chain.chainId),
    logLevel: logLevelSetting(env),
    urls: publicUrlsFromEnv(env),
  }
}
