/**
 * The broadcast submitter's settings from the environment (RELAYER_PRIVATE_KEY and the chain, with the
 * devnet deployment's values on chain 31337), one ConfigError line per bad value.
 */
import type { Hex } from 'viem'
import type { Deployment } from '../wire/index.js'
import { chainSettingsFromEnv, type RpcEndpoints } from './chain-settings.js'
import { privateKeySetting } from './key-setting.js'
import { LOCAL_CHAIN_ID } from './local-keys.js'
import { ConfigError, intSetting, type Env } from './parse-env.js'

export interface SubmitterSettings extends RpcEndpoints {
  chainId: number
  settlementContract: Hex
  relayerKey: Hex
  /** Wei; undefined = the cost of 10 payments at current gas prices. */
  minBalance?: bigint
  /** Below this many payments of runway the submitter warns and /health shows it (not a stop: see minBalance). */
  runwayWarningPayments: bigint
  /** How often the gas of a payment is re-measured from recent receipts, with the gas price. */
  runwayMeasureMs: number
  /** A transaction unmined this long is replaced with a higher fee. */
  stuckTimeoutMs: number
  /** Wei per gas no replacement passes; undefined = only `maxFeeGrowth` bounds it. */
  maxFeePerGas?: bigint
  /** No replacement pays more than this many times its submission's first transaction's fees. */
  maxFeeGrowth: number
  /** Between steps while there is work in flight. */
  pollIntervalMs: number
  /** Between steps while idle (a NOTIFY wakes the submitter sooner). */
  idlePollMs: number
  /** How often a standby tries to take over the relayer's lock. */
  standbyPollMs: number
  balanceCheckMs: number
  /** How often the relayer status is rewritten while active, so gateways can tell a live submitter from a dead one. */
  heartbeatMs: number
  /** A consumed nonce whose receipts stay absent while the chain moves this many blocks on is DROPPED. */
  droppedAfterBlocks: number
  /** How many blocks after the verdict a DROPPED submission is still watched for a receipt (→ SUCCESS). */
  droppedWatchBlocks: number
  /** Submissions validated and sent per step. */
  batchSize: number
  /** The first wait of a submission put back (permit nonce ahead, node not answering); doubled each time. */
  deferMs: number
  /** The longest single wait. */
  deferMaxMs: number
  /** A submission put back this many times fails at the next check that would put it back again. */
  maxDeferrals: number
  deadlineMarginSeconds: number
}

export function submitterSettingsFromEnv(env: Env = process.env, deployment?: Deployment): SubmitterSettings {
  const { chainId, rpcUrl, fallbackRpcUrls, rpcStallMs, contract } = chainSettingsFromEnv(env, deployment)
  return {
    chainId,
    rpcUrl,
    fallbackRpcUrls,
    rpcStallMs,
    settlementContract: contract,
    relayerKey: privateKeySetting(env, 'RELAYER_PRIVATE_KEY', chainId, chainId === LOCAL_CHAIN_ID ? deployment?.relayerKey : undefined),
    minBalance: weiSetting(env, 'RELAYER_MIN_BALANCE'),
    runwayWarningPayments: runwayWarningSetting(env),
    runwayMeasureMs: intSetting(env, 'SUBMITTER_RUNWAY_MEASURE_MS', 60_000, 100),
    stuckTimeoutMs: intSetting(env, 'SUBMITTER_STUCK_TIMEOUT_MS', 30_000, 100),
    maxFeePerGas: weiSetting(env, 'SUBMITTER_MAX_FEE_PER_GAS'),
    maxFeeGrowth: intSetting(env, 'SUBMITTER_MAX_FEE_GROWTH', 10, 1, 1_000_000),
    pollIntervalMs: intSetting(env, 'SUBMITTER_POLL_MS', 20, 1),
    idlePollMs: intSetting(env, 'SUBMITTER_IDLE_POLL_MS', 1_000, 10),
    standbyPollMs: intSetting(env, 'SUBMITTER_STANDBY_POLL_MS', 1_000, 10),
    balanceCheckMs: intSetting(env, 'SUBMITTER_BALANCE_CHECK_MS', 1_000, 10),
    heartbeatMs: intSetting(env, 'SUBMITTER_HEARTBEAT_MS', 5_000, 10),
    droppedAfterBlocks: intSetting(env, 'SUBMITTER_DROPPED_AFTER_BLOCKS', 5, 1, 10_000),
    droppedWatchBlocks: intSetting(env, 'SUBMITTER_DROPPED_WATCH_BLOCKS', 256, 0, 1_000_000),
    batchSize: intSetting(env, 'SUBMITTER_BATCH', 64, 1, 1000),
    deferMs: intSetting(env, 'SUBMITTER_DEFER_MS', 100, 1),
    deferMaxMs: intSetting(env, 'SUBMITTER_DEFER_MAX_MS', 30_000, 1),
    maxDeferrals: intSetting(env, 'SUBMITTER_MAX_DEFERRALS', 20, 0, 1000),
    deadlineMarginSeconds: intSetting(env, 'SUBMITTER_DEADLINE_MARGIN_SECONDS', 5, 0),
  }
}

/** An optional amount of wei: undefined when unset. */
function weiSetting(env: Env, name: string): bigint | undefined {
  const value = env[name]?.trim()
  if (value === undefined || value === '') return undefined
  if (!/^\d+$/.test(value)) throw new ConfigError(`${name} must be an integer amount of wei, got "${value}"`)
  return BigInt(value)
}

/** RELAYER_RUNWAY_WARNING_PAYMENTS: the runway, in payments, below which operators are warned (10,000). */
export function runwayWarningSetting(env: Env = process.env): bigint {
  return BigInt(intSetting(env, 'RELAYER_RUNWAY_WARNING_PAYMENTS', 10_000, 0, 1_000_000_000))
}
