/**
 * The checkout widget's options (PROCESSOR.md §5), built once from the environment: the chain a payment
 * session names (the devnet's deployment fills in on chain 31337), where the payment pages listen, and
 * the public URLs they hand out (the payment link's base, the wallet gateway).
 */
import type { Deployment } from '../wire/index.js'
import type { LogLevel } from './parse-env.js'
import { chainSettingsFromEnv, pollIntervalSetting, type ChainSettings } from './chain-settings.js'
import { intSetting, logLevelSetting, stringSetting, type Env } from './parse-env.js'
import { chargeTtlSetting } from './checkout-options.js'
import { publicUrlsFromEnv } from './public-urls.js'
import { trustedProxiesSetting } from './trusted-proxies.js'

export interface WidgetOptions extends ChainSettings {
  host: string
  port: number
  /**
   * Where payers reach the pages (CHECKOUT_WIDGET_URL, else http://127.0.0.1:WIDGET_PORT): the payment
   * link in the QR code is `<publicUrl>/s/<id>?t=<token>`. Absent when WIDGET_PORT is 0 (tests): the
   * address actually bound is announced then.
   */
  publicUrl?: string
  walletGatewayUrl: string
  /** A paying settlement links to `<explorerUrl>/events/<txHash>`. */
  explorerUrl: string
  /** How often the contract is polled for admin events (token list changes). */
  pollIntervalMs: number
  /**
   * A page load shows a fresh payment link (replacing the token in the last page's QR code) at most once
   * this often per charge while that link is unused; 0 = on every load.
   */
  linkIntervalSeconds: number
  /** Payment links (issue 23): what a payer's charge from a link lives, and how many charges one link and one client address may create. */
  paymentLinks: PaymentLinkLimits
  /** The pages' live status streams (issue 38 item 4). */
  liveStreams: LiveStreamLimits
  logLevel: LogLevel
}

export interface LiveStreamLimits {
  /** Streams open at once in one widget process (503 past it). */
  maxStreams: number
  /** Streams open at once from one client address, an IPv6 one by its /64 (429 past it). */
  maxStreamsPerAddress: number
  /** The Retry-After of a refused stream. */
  retryAfterSeconds: number
  /** TRUSTED_PROXIES, as for the payment links. */
  trustedProxies: readonly string[]
}

export interface PaymentLinkLimits {
  /** CHARGE_TTL_SECONDS, as the checkout engine's charges. */
  chargeTtlSeconds: number
  /** Charges one client address may create from links: a burst, then a rate per minute. */
  chargesPerMinutePerAddress: number
  chargeBurstPerAddress: number
  /** TRUSTED_PROXIES: the peers whose X-Forwarded-For names the client address. */
  trustedProxies: readonly string[]
  /** Charges of one link held at once (awaiting payment, made less than `holdSeconds` ago), whoever made them. */
  maxOpenChargesPerLink: number
  /** How long a charge from a link awaiting payment counts as a use of it (its hold); a paid one always counts. */
  holdSeconds: number
}

export function widgetOptionsFromEnv(env: Env = process.env, deployment?: Deployment): WidgetOptions {
  const chain = chainSettingsFromEnv(env, deployment)
  const port = intSetting(env, 'WIDGET_PORT', 4004, 0, 65535)
  // Port 0 (any free port) cannot be announced; with no CHECKOUT_WIDGET_URL the bound port is used instead.
  const announcesBoundPort = port === 0 && !env.CHECKOUT_WIDGET_URL?.trim()
  const urls = publicUrlsFromEnv(announcesBoundPort ? { ...env, WIDGET_PORT: undefined } : env)
  return {
    ...chain,
    host: stringSetting(env, 'WIDGET_HOST', '127.0.0.1'),
    port,
    publicUrl: announcesBoundPort ? undefined : urls.checkoutWidgetUrl,
    walletGatewayUrl: urls.walletGatewayUrl,
    explorerUrl: urls.explorerUrl,
    pollIntervalMs: pollIntervalSetting(env, chain.chainId),
    linkIntervalSeconds: intSetting(env, 'WIDGET_LINK_INTERVAL_SECONDS', 15, 0, 300),
    paymentLinks: {
      chargeTtlSeconds: chargeTtlSetting(env),
      chargesPerMinutePerAddress: intSetting(env, 'PAYMENT_LINK_CHARGES_PER_MINUTE', 6, 1, 100_000),
      chargeBurstPerAddress: intSetting(env, 'PAYMENT_LINK_CHARGE_BURST', 5, 1, 100_000),
      trustedProxies: trustedProxiesSetting(env),
      maxOpenChargesPerLink: intSetting(env, 'PAYMENT_LINK_MAX_OPEN_CHARGES', 100, 1, 1_000_000),
      holdSeconds: intSetting(env, 'PAYMENT_LINK_HOLD_SECONDS', 120, 1, 86_400),
    },
    liveStreams: {
      maxStreams: intSetting(env, 'WIDGET_MAX_STREAMS', 10_000, 1, 1_000_000),
      maxStreamsPerAddress: intSetting(env, 'WIDGET_MAX_STREAMS_PER_ADDRESS', 32, 1, 1_000_000),
      retryAfterSeconds: 30,
      trustedProxies: trustedProxiesSetting(env),
    },
    logLevel: logLevelSetting(env),
  }
}
