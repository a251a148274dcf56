/** Typed reading of command-line flag values, with one-line errors naming the flag. */
import { BaseError } from '../../errors/index.js'

/** A flag value the command cannot use: the operator must fix it. */
export class FlagError extends BaseError {
  override name = 'FlagError'
}

export function numberFlag(value: string | undefined, flag: string, fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  if (value === undefined) return fallback
  const n = Number(value)
  if (value.trim() === '' || !Number.isFinite(n) || n < min || n > max) {
    throw new FlagError(`--${flag} must be a number ${min}..${max}, got "${value}"`)
  }
  return n
}

export function amountFlag(value: string | undefined, flag: string): bigint {
  if (value === undefined || !/^\d+$/.test(value)) {
    throw new FlagError(`--${flag} must be an integer amount in the token's smallest unit, got "${value ?? ''}"`)
  }
  return BigInt(value)
}

/**
 * A positional `<name>` amount: an integer in the token's smallest unit (`3000000`), or, with a decimal
 * point, in token units (`3.00`) when the token's `decimals` are known.
 */
export function amountArg(value: string | undefined, name: string, decimals?: number): bigint {
  if (value !== undefined && /^\d+$/.test(value)) return BigInt(value)
  const decimal = value === undefined ? undefined : /^(\d+)\.(\d+)$/.exec(value)
  if (decimal && decimals !== undefined && decimal[2]!.length <= decimals) return BigInt(decimal[1]! + decimal[2]!.padEnd(decimals, '0'))
  const units = decimals === undefined ? '' : ` or in token units with a decimal point and at most ${decimals} decimals (3.00 = ${3n * 10n ** BigInt(decimals)})`
  throw new FlagError(`<${name}> must be an integer amount in the token's smallest unit${units}, got "${value ?? ''}"`)
}

/** A 0x-prefixed 20-byte address, lower-cased (the form the project stores and compares). */
export function addressFlag(value: string | undefined, name: string): `0x${string}` {
  if (value === undefined || !/^0x[0-9a-fA-F]{40}$/.test(value)) {
    throw new FlagError(`${name} must be a 0x-prefixed 20-byte address, got "${value ?? ''}"`)
  }
  return value.toLowerCase() as `0x${string}`
}
