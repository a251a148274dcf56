/**
 * EIP-712 digests of the fixed types this project signs and checks (envelopes, permits, binding
 * signatures), with the work that never changes done once: type hashes when a hasher is made, each
 * domain's separator on first use. A digest then costs one keccak per struct and the final one, where
 * viem's `hashTypedData` re-derives the types, re-hashes the domain and ABI-encodes on every call (~9
 * keccaks; it was the gateway's largest CPU cost once signatures were recovered natively). The digests
 * are viem's (test/gateway/typed-data-hasher.test.ts). Field types: address, bytes32, uint256, string and
 * structs of them; values are not validated beyond their form (addresses in any case, no checksum: the
 * callers pass validated, lower-case input). Browser-safe.
 */
import { getTypesForEIP712Domain, hashDomain, keccak256, stringToHex, type Hex, type TypedDataDomain } from 'viem'
import { BaseError } from './base-error.js'

export interface TypedField {
  name: string
  type: string
}

export type TypedFields = Record<string, readonly TypedField[]>

/** `digest(domainSeparator(domain), message)` = `hashTypedData({ domain, types, primaryType, message })`. */
export type TypedDataHasher = (domainSeparator: Hex, message: Record<string, unknown>) => Hex

const ADDRESS = /^0x[0-9a-fA-F]{40}$/
const WORD = /^0x[0-9a-fA-F]{64}$/
const MAX_UINT256 = (1n << 256n) - 1n
/** Domains are few (the gateway's, the settlement contract's, each token's); the bound only guards memory. */
const MAX_DOMAINS = 1024
const separators = new Map<string, Hex>()

export function domainSeparator(domain: TypedDataDomain): Hex {
  const key = `${domain.name}\u0000${domain.version}\u0000${domain.chainId}\u0000${domain.verifyingContract?.toLowerCase()}\u0000${domain.salt}`
  let separator = separators.get(key)
  if (!separator) {
    separator = hashDomain({ domain, types: { EIP712Domain: getTypesForEIP712Domain({ domain }) } } as Parameters<typeof hashDomain>[0])
    if (separators.size >= MAX_DOMAINS) separators.clear()
    separators.set(key, separator)
  }
  return separator
}

export function typedDataHasher(types: TypedFields, primaryType: string): TypedDataHasher {
  const typeHashes = new Map(Object.keys(types).map((name) => [name, keccak256(stringToHex(encodeType(types, name)))]))

  const structHash = (type: string, data: Record<string, unknown>): Hex => {
    let encoded = typeHashes.get(type)!
    for (const field of types[type]!) encoded += fieldWord(field, data[field.name]).slice(2)
    return keccak256(encoded as Hex)
  }

  const fieldWord = ({ name, type }: TypedField, value: unknown): Hex => {
    if (types[type]) return structHash(type, value as Record<string, unknown>)
    if (type === 'string' && typeof value === 'string') return keccak256(stringToHex(value))
    if (type === 'address' && typeof value === 'string' && ADDRESS.test(value)) return `0x${value.slice(2).padStart(64, '0')}`
    if (type === 'bytes32' && typeof value === 'string' && WORD.test(value)) return value as Hex
    if (type === 'uint256' && (typeof value === 'bigint' || (typeof value === 'number' && Number.isSafeInteger(value)))) {
      const n = BigInt(value)
      if (n >= 0n && n <= MAX_UINT256) return `0x${n.toString(16).padStart(64, '0')}`
    }
    throw new BaseError(`typed data field ${name} (${type}) has an invalid value: ${String(value)}`)
  }

  return (separator, message) => keccak256(`0x1901${separator.slice(2)}${structHash(primaryType, message).slice(2)}`)
}

/** `Name(type name,…)` followed by the referenced struct types in alphabetical order (EIP-712 encodeType). */
function encodeType(types: TypedFields, primaryType: string): string {
  const deps = new Set<string>()
  const walk = (type: string) => {
    if (!types[type] || deps.has(type)) return
    deps.add(type)
    for (const field of types[type]) walk(field.type)
  }
  walk(primaryType)
  deps.delete(primaryType)
  return [primaryType, ...[...deps].sort()].map((type) => `${type}(${types[type]!.map((f) => `${f.type} ${f.name}`).join(',')})`).join('')
}
