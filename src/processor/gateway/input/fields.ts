/**
 * Readers for the fields of client messages. Each names the field's path in its refusal
 * (`payload.transferRequest.permitSig.v`), so a wallet developer sees which value is wrong: a missing
 * field is MISSING_FIELD, anything present but malformed (wrong type, bad hex, unknown key) INVALID_FORMAT.
 * Hex comes back lower case; amounts stay decimal strings.
 */
import type { Hex } from 'viem'
import { GatewayRefusal } from './gateway-refusal.js'

export type Fields = Record<string, unknown>
export type Read<T> = (value: unknown, at: string) => T

const MAX_UINT256 = (1n << 256n) - 1n

const invalid = (at: string, what: string) => new GatewayRefusal('INVALID_FORMAT', `${at} must be ${what}`)

export const isFields = (value: unknown): value is Fields => typeof value === 'object' && value !== null && !Array.isArray(value)

/** Any object; its fields are read later. */
export const anyObject: Read<Fields> = (value, at) => {
  if (!isFields(value)) throw invalid(at, 'an object')
  return value
}

const OPTIONAL = Symbol('optional')

/** Marks a field of a `struct` that may be absent. */
export const optional = <T>(read: Read<T>): Read<T | undefined> => Object.assign((value: unknown, at: string) => read(value, at), { [OPTIONAL]: true })

type Shape = Record<string, Read<unknown>>
export type Struct<S extends Shape> = { [K in keyof S]: S[K] extends Read<infer T> ? T : never }

/** An object with the fields of `shape` and no others (a typo in a field name is refused, not ignored). */
export function struct<S extends Shape>(shape: S): Read<Struct<S>> {
  const keys = Object.keys(shape)
  return (input, at) => {
    const value = anyObject(input, at)
    const unknown = Object.keys(value).find((key) => !Object.hasOwn(shape, key))
    if (unknown !== undefined) throw new GatewayRefusal('INVALID_FORMAT', `${at} has an unknown field "${unknown}"; expected ${keys.join(', ')}`)
    const read: Fields = {}
    for (const key of keys) {
      const reader = shape[key]!
      if (value[key] !== undefined) read[key] = reader(value[key], `${at}.${key}`)
      else if (!(OPTIONAL in reader)) throw new GatewayRefusal('MISSING_FIELD', `${at}.${key} is missing`)
    }
    return read as Struct<S>
  }
}

export const text =
  (maxLength: number): Read<string> =>
  (value, at) => {
    if (typeof value !== 'string' || value.length === 0 || value.length > maxLength) throw invalid(at, `a string of 1 to ${maxLength} characters`)
    return value
  }

export const hexBytes =
  (bytes: number): Read<Hex> =>
  (value, at) => {
    if (typeof value !== 'string' || value.length !== 2 + 2 * bytes || !/^0x[0-9a-fA-F]*$/.test(value)) throw invalid(at, `0x and ${2 * bytes} hex digits`)
    return value.toLowerCase() as Hex
  }

export const address = hexBytes(20)
export const bytes32 = hexBytes(32)

export const integer =
  (min: number, max: number): Read<number> =>
  (value, at) => {
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) throw invalid(at, `an integer ${min}..${max}`)
    return value
  }

/** A uint256 as a decimal string without sign or leading zeros. */
export const uint256: Read<string> = (value, at) => {
  if (typeof value !== 'string' || !/^(0|[1-9]\d{0,77})$/.test(value) || BigInt(value) > MAX_UINT256) {
    throw invalid(at, 'a decimal string of an integer 0..2^256-1')
  }
  return value
}

export const oneOf =
  <T extends string>(choices: readonly T[]): Read<T> =>
  (value, at) => {
    if (!choices.includes(value as T)) throw invalid(at, `one of ${choices.map((c) => JSON.stringify(c)).join(', ')}`)
    return value as T
  }

/** A list of `min`..`max` items, duplicates dropped. */
export const listOf =
  <T>(read: Read<T>, min: number, max: number): Read<T[]> =>
  (value, at) => {
    if (!Array.isArray(value) || value.length < min || value.length > max) throw invalid(at, `a list of ${min} to ${max} items`)
    return [...new Set(value.map((item, i) => read(item, `${at}[${i}]`)))]
  }
