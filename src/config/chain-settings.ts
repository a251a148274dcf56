/**
 * The chain a piece works against (CHAIN_ID, SETTLEMENT_CONTRACT, RPC_URL, START_BLOCK), with a fixed
 * precedence: environment first, then the local devnet's deployment (only on chain 31337), then defaults.
 * RPC_URL may name several nodes of the chain, comma-separated, the first preferred (src/chain/nodes).
 */
import type { Deployment } from '../wire/index.js'
import type { Hex } from '../wire/index.js'
import { LOCAL_CHAIN_ID } from './local-keys.js'
import { ConfigError, addressSetting, intSetting, urlListSetting, type Env } from './parse-env.js'

/** The nodes a piece reads from and sends through: RPC_URL's entries in order. */
export interface RpcEndpoints {
  /** The preferred node (RPC_URL's first entry): used whenever it answers and keeps up. */
  rpcUrl: string
  /** RPC_URL's further entries, in order: they take over while the nodes before them fail or lag. */
  fallbackRpcUrls?: readonly string[]
  /** RPC_STALL_SECONDS in ms: a node whose head has not moved this long while another's is higher lags. */
  rpcStallMs?: number
}

export interface ChainSettings extends RpcEndpoints {
  chainId: number
  /** The settlement contract, lower case. */
  contract: Hex
  /** The contract's deployment block: reading its events starts here. */
  startBlock: number
}

/** POLL_INTERVAL_MS: how often a piece polls the node; local blocks come much faster than public ones. */
export function pollIntervalSetting(env: Env, chainId: number): number {
  return intSetting(env, 'POLL_INTERVAL_MS', chainId === LOCAL_CHAIN_ID ? 200 : 2000, 10)
}

/** RPC_STALL_SECONDS's default: two and a half mainnet blocks, and more than any public chain's block time. */
export const DEFAULT_RPC_STALL_SECONDS = 30

/** RPC_URL (one URL or several, comma-separated, the first preferred) and RPC_STALL_SECONDS. */
export function rpcEndpointsSetting(env: Env, fallback: string | undefined): Required<RpcEndpoints> {
  const [rpcUrl, ...fallbackRpcUrls] = urlListSetting(env, 'RPC_URL', fallback)
  return { rpcUrl: rpcUrl!, fallbackRpcUrls, rpcStallMs: intSetting(env, 'RPC_STALL_SECONDS', DEFAULT_RPC_STALL_SECONDS, 1, 3600) * 1000 }
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
    ...rpcEndpointsSetting(env, fromDeployment?.rpcUrl ?? 'http://127.0.0.1:8545'),
    contract,
    startBlock: intSetting(env, 'START_BLOCK', fromDeployment?.startBlock ?? 0),
  }
}
