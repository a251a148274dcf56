/**
 * The `deploy` script's settings: a JSON config file for the contract parameters, with the network and
 * the base fee overridable from the environment (RPC_URL, CHAIN_ID, BASE_FEE_AMOUNT take precedence).
 * Every problem is one line naming the field or variable.
 */
import { readFile } from 'node:fs/promises'
import type { Hex } from 'viem'
import { ConfigError, intSetting, urlSetting, type Env } from '../../config/index.js'
import type { SettlementParams } from './deploy-settlement.js'

export interface DeployConfig {
  rpcUrl: string
  chainId: number
  /** `feeRecipient` absent = the deployer. */
  settlement: Omit<SettlementParams, 'feeRecipient'> & { feeRecipient?: Hex }
  testTokens: { name: string; symbol: string }[]
}

interface ConfigFile {
  network?: { rpcUrl?: unknown; chainId?: unknown }
  baseFeeAmount?: unknown
  maxAcquiringFee?: unknown
  acquiringPrice?: unknown
  feeRecipient?: unknown
  allowedTokens?: unknown
  testTokens?: unknown
}

export async function readDeployConfig(path: string, env: Env): Promise<DeployConfig> {
  let file: ConfigFile
  try {
    file = JSON.parse(await readFile(path, 'utf8')) as ConfigFile
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'not found' : 'not valid JSON'
    throw new ConfigError(`config file ${path}: ${reason}`, { cause: error })
  }
  const at = (field: string) => `config ${path}: ${field}`
  const chainIdFromFile = file.network?.chainId
  return {
    rpcUrl: urlSetting(env, 'RPC_URL', typeof file.network?.rpcUrl === 'string' ? file.network.rpcUrl : undefined),
    chainId: intSetting(env, 'CHAIN_ID', typeof chainIdFromFile === 'number' ? chainIdFromFile : undefined, 1),
    settlement: {
      baseFeeAmount: env.BASE_FEE_AMOUNT?.trim()
        ? amount(env.BASE_FEE_AMOUNT, 'BASE_FEE_AMOUNT')
        : amount(file.baseFeeAmount ?? '2500000', at('baseFeeAmount')),
      maxAcquiringFee: Number(amount(file.maxAcquiringFee ?? 500, at('maxAcquiringFee'), 10_000n)),
      acquiringPrice: amount(file.acquiringPrice, at('acquiringPrice')),
      feeRecipient: file.feeRecipient === undefined ? undefined : address(file.feeRecipient, at('feeRecipient')),
      allowedTokens: list(file.allowedTokens, at('allowedTokens')).map((token, i) => address(token, at(`allowedTokens[${i}]`))),
    },
    testTokens: list(file.testTokens, at('testTokens')).map((token, i) => {
      const { name, symbol } = (token ?? {}) as { name?: unknown; symbol?: unknown }
      if (typeof name !== 'string' || typeof symbol !== 'string') {
        throw new ConfigError(`${at(`testTokens[${i}]`)} must be { "name": string, "symbol": string }`)
      }
      return { name, symbol }
    }),
  }
}

/** Amounts are integers in the token's smallest unit, as a JSON number or a decimal string. */
function amount(value: unknown, where: string, max?: bigint): bigint {
  const text = typeof value === 'number' && Number.isSafeInteger(value) ? String(value) : value
  if (typeof text !== 'string' || !/^\d+$/.test(text.trim())) {
    throw new ConfigError(`${where} must be a non-negative integer (string or number), got ${JSON.stringify(value)}`)
  }
  const n = BigInt(text.trim())
  if (max !== undefined && n > max) throw new ConfigError(`${where} must be at most ${max}, got ${n}`)
  return n
}

function address(value: unknown, where: string): Hex {
  if (typeof value !== 'string' || !/^0x[0-9a-fA-F]{40}$/.test(value)) {
    throw new ConfigError(`${where} must be a 0x-prefixed 20-byte address, got ${JSON.stringify(value)}`)
  }
  return value.toLowerCase() as Hex
}

function list(value: unknown, where: string): unknown[] {
  if (value === undefined) return []
  if (!Array.isArray(value)) throw new ConfigError(`${where} must be an array`)
  return value
}
