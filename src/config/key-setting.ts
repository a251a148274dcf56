/**
 * Private keys from the environment: well-formed, and never a well-known anvil key off the local chain.
 * A fallback (the local test keys) is only offered on chain 31337.
 */
import type { Hex } from 'viem'
import { assertKeyAllowed, LOCAL_CHAIN_ID } from './local-keys.js'
import { ConfigError, type Env } from './parse-env.js'

export function privateKeySetting(env: Env, name: string, chainId: number, localFallback?: Hex): Hex {
  const value = env[name]?.trim() || (chainId === LOCAL_CHAIN_ID ? localFallback : undefined)
  if (!value) throw new ConfigError(`${name} is required (a 0x-prefixed 32-byte private key)`)
  if (!/^0x[0-9a-fA-F]{64}$/.test(value)) throw new ConfigError(`${name} must be a 0x-prefixed 32-byte private key`)
  try {
    assertKeyAllowed(chainId, value as Hex)
  } catch (error) {
    throw new ConfigError(`${name}: ${(error as Error).message}`, { cause: error })
  }
  return value as Hex
}
