/**
 * The chain a piece works against (CHAIN_ID, SETTLEMENT_CONTRACT, RPC_URL, START_BLOCK), with a fixed
 * precedence: environment first, then the local devnet's deployment (only on chain 31337), then defaults.
 */
import type { Deployment } from '../wire/index.js'
import type { Hex } from '../wire/index.js'
import { LOCAL_CHAIN_ID } from './local-keys.js'
import { ConfigError, addressSetting, intSetting, urlSetting, type Env } from './parse-env.js'

export interface ChainSettings {
  chainId: number
  rpcUrl: string
  /** The settlement contract, lower case. */
  contract: Hex
  /** The contract's deployment block: reading its events starts here. */
  startBlock: number
}

/** POLL_INTERVAL_MS: how often a piece polls the node; local blocks come much faster than public ones. */
export function pollIntervalSetting(env: Env, chainId: number): number {
  return intSetting(env, 'POLL_INTERVAL_MS', chainId === LOCAL_CHAIN_ID ? 200 : 2000, 10)
}

/** CHAIN_ID, for pieces that need the chain id without a contract (the certificate authority). */
export function chainIdSetting(env: Env): number {
  return intSetting(env, 'CHAIN_ID', LOCAL_CHAIN_ID, 1)
}

export function chainSettingsFromEnv(env: Env, deployment?: Deployment): ChainSettings {
  const chainId = chainIdSetting(env)
  if (chainId !== LOCAL_CHAIN_ID) deployment = undefined
  if (deployment && deployment.chainId !== chainId) throw new ConfigError(`DEPLOYMENT_FILE is for chain ${deployment.chainId}, not CHAIN_ID ${chainId}`)
  const contract = addressSetting(env, 'SETTLEMENT_CONTRACT', deployment?.settlementContract)
  const fromDeployment = deployment?.settlementContract.toLowerCase() === contract ? deployment : undefined
  return {
    chainId,
    rpcUrl: urlSetting(env, 'RPC_URL', fromDeployment?.rpcUrl ?? 'http://127.0.0.1:8545'),
    contract,
    startBlock: intSetting(env, 'START_BLOCK', fromDeployment?.startBlock ?? 0),
  }
}
