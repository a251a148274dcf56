/**
 * The wallet gateway's options (PROCESSOR.md §2), built once from the environment: the chain it serves
 * (the devnet's deployment fills in on chain 31337), where it listens, the explorer it follows, and the
 * per-connection and per-owner limits that keep a bad client from costing others anything.
 */
import type { Deployment } from '../wire/index.js'
import type { LogLevel } from './parse-env.js'
import { chainSettingsFromEnv, pollIntervalSetting, type ChainSettings } from './chain-settings.js'
import { intSetting, logLevelSetting, stringSetting, urlSetting, type Env } from './parse-env.js'
import { trustedProxiesSetting } from './trusted-proxies.js'

export interface GatewayLimits {
  /** Messages over this size are answered INVALID_FORMAT; frames over 16 times it are cut by uWS. */
  maxMessageBytes: number
  /** Token bucket per connection: refill rate and capacity, in messages. */
  messagesPerSecond: number
  messageBurst: number
  /** Token bucket per client address, shared by all of its connections. */
  addressMessagesPerSecond: number
  addressMessageBurst: number
  /** Messages refused by the rate limit within 10 s that close the connection (4008). */
  abuseThreshold: number
  /** Connections held at once (HTTP 503 at the upgrade past it), and from one client address (429). */
  maxConnections: number
  maxConnectionsPerAddress: number
  /** TRUSTED_PROXIES: the peers whose X-Forwarded-For names the client address. */
  trustedProxies: readonly string[]
  /** A connection that has sent no valid signed message by then is closed (4002). */
  firstMessageSeconds: number
  /** A connection that has sent nothing for this long is closed (4003). */
  idleSeconds: number
  /** Subscribed, queried or subscribed-to domain separators per message. */
  maxSeparators: number
  /** Submissions not yet final one permit owner may have queued, executable and future (RATE_LIMIT_EXCEEDED past it). */
  maxQueuedPerOwner: number
  /** Executable submissions not yet final in the whole queue (RELAYER_UNAVAILABLE past it). */
  maxQueued: number
  /** Future submissions (not executable yet) not yet final one permit owner may have queued (RATE_LIMIT_EXCEEDED past it). */
  maxFuturePerOwner: number
  /** Future submissions not yet final in the whole queue; a new one past it evicts the oldest waiting ones. */
  maxFuture: number
}

export interface GatewayOptions extends ChainSettings {
  host: string
  port: number
  explorerUrl: string
  /** Head polling for balance updates. */
  pollIntervalMs: number
  /** How often the relayer status is re-read besides its notifications. */
  relayerRefreshMs: number
  /** A relayer status no submitter rewrote for this long means none is alive: RELAYER_UNAVAILABLE. */
  relayerStaleMs: number
  logLevel: LogLevel
  limits: GatewayLimits
}

export function gatewayOptionsFromEnv(env: Env = process.env, deployment?: Deployment): GatewayOptions {
  const chain = chainSettingsFromEnv(env, deployment)
  return {
    ...chain,
    host: stringSetting(env, 'GATEWAY_HOST', '127.0.0.1'),
    port: intSetting(env, 'GATEWAY_PORT', 4000, 0, 65535),
    explorerUrl: urlSetting(env, 'EXPLORER_URL', 'http://127.0.0.1:4001').replace(/\/+$/, ''),
    pollIntervalMs: pollIntervalSetting(env, chain.chainId),
    relayerRefreshMs: intSetting(env, 'GATEWAY_RELAYER_REFRESH_MS', 5_000, 10),
    // About three of the submitter's heartbeats (SUBMITTER_HEARTBEAT_MS, 5 s).
    relayerStaleMs: intSetting(env, 'GATEWAY_RELAYER_STALE_MS', 15_000, 100),
    logLevel: logLevelSetting(env),
    limits: {
      maxMessageBytes: intSetting(env, 'GATEWAY_MAX_MESSAGE_BYTES', 64 * 1024, 1024, 1 << 20),
      messagesPerSecond: intSetting(env, 'GATEWAY_MESSAGES_PER_SECOND', 20, 1),
      messageBurst: intSetting(env, 'GATEWAY_MESSAGE_BURST', 40, 1),
      addressMessagesPerSecond: intSetting(env, 'GATEWAY_IP_MESSAGES_PER_SECOND', 200, 1),
      addressMessageBurst: intSetting(env, 'GATEWAY_IP_MESSAGE_BURST', 400, 1),
      abuseThreshold: intSetting(env, 'GATEWAY_ABUSE_THRESHOLD', 100, 1),
      maxConnections: intSetting(env, 'GATEWAY_MAX_CONNECTIONS', 20_000, 1),
      maxConnectionsPerAddress: intSetting(env, 'GATEWAY_MAX_CONNECTIONS_PER_IP', 256, 1),
      trustedProxies: trustedProxiesSetting(env),
      firstMessageSeconds: intSetting(env, 'GATEWAY_FIRST_MESSAGE_SECONDS', 30, 1, 3600),
      idleSeconds: intSetting(env, 'GATEWAY_IDLE_SECONDS', 300, 1, 86_400),
      maxSeparators: intSetting(env, 'GATEWAY_MAX_SEPARATORS', 32, 1, 1000),
      maxQueuedPerOwner: intSetting(env, 'GATEWAY_MAX_QUEUED_PER_OWNER', 16, 1, 100_000),
      maxQueued: intSetting(env, 'GATEWAY_MAX_QUEUED_TOTAL', 10_000, 1, 10_000_000),
      maxFuturePerOwner: intSetting(env, 'GATEWAY_MAX_FUTURE_PER_OWNER', 4, 0, 100_000),
      maxFuture: intSetting(env, 'GATEWAY_MAX_FUTURE_TOTAL', 1_024, 1, 10_000_000),
    },
  }
}
