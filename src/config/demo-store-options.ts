/**
 * The demo store's options (PROCESSOR.md §6), built once from the environment: where it listens, the
 * merchant API it buys through (with the demo merchant's files), the data service (the token's address
 * and decimals), what it sells in and who is paid; and, on chain 31337 only, the demo wallet's node.
 */
import { privateKeyToAccount } from 'viem/accounts'
import type { Hex } from 'viem'
import type { LogLevel } from './parse-env.js'
import { chainIdSetting } from './chain-settings.js'
import { deriveLocalKey, LOCAL_CHAIN_ID } from './local-keys.js'
import { addressSetting, intSetting, logLevelSetting, stringSetting, urlListSetting, urlSetting, type Env } from './parse-env.js'

export interface DemoStoreOptions {
  chainId: number
  host: string
  port: number
  /** The checkout engine's merchant API (mutual TLS). */
  checkoutUrl: string
  /** The demo merchant's client key and certificate, CA certificate and webhook secret. */
  merchantDir: string
  dataServiceUrl: string
  /** The token's symbol the store prices in. */
  currency: string
  /** Who the charges pay. */
  beneficiary: Hex
  /** The node the demo wallet tops its payer up on; only on chain 31337, where the button exists. */
  demoWallet?: { rpcUrl: string }
  logLevel: LogLevel
}

export const DEFAULT_DEMO_MERCHANT_DIR = '.data/demo-merchant'

export function demoStoreOptionsFromEnv(env: Env = process.env): DemoStoreOptions {
  const chainId = chainIdSetting(env)
  const local = chainId === LOCAL_CHAIN_ID
  // On the devnet the store is paid to the devnet's first recipient.
  const localBeneficiary = local ? (privateKeyToAccount(deriveLocalKey('recipient', 0)).address.toLowerCase() as Hex) : undefined
  return {
    chainId,
    host: stringSetting(env, 'STORE_HOST', '127.0.0.1'),
    port: intSetting(env, 'STORE_PORT', 3000, 0, 65535),
    checkoutUrl: urlSetting(env, 'CHECKOUT_URL', 'https://127.0.0.1:4003', ['https:']).replace(/\/+$/, ''),
    merchantDir: stringSetting(env, 'DEMO_MERCHANT_DIR', DEFAULT_DEMO_MERCHANT_DIR),
    dataServiceUrl: urlSetting(env, 'DATA_SERVICE_URL', 'http://127.0.0.1:4002').replace(/\/+$/, ''),
    currency: stringSetting(env, 'STORE_CURRENCY', 'USDC'),
    beneficiary: addressSetting(env, 'STORE_BENEFICIARY', localBeneficiary),
    // Top-ups are the devnet's own: its first node is enough.
    demoWallet: local ? { rpcUrl: urlListSetting(env, 'RPC_URL', 'http://127.0.0.1:8545')[0]! } : undefined,
    logLevel: logLevelSetting(env),
  }
}
