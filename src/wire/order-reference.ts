/**
 * The 32-byte `ref` of a settlement: 16-byte order reference (high half) ‖ 16-byte acquirer id (low half).
 * Browser-safe (the SDK's wallet client signs with it): randomness from Web Crypto.
 */
import type { Hex } from 'viem'
import { BaseError } from './base-error.js'

export const ZERO_BYTES16: Hex = `0x${'0'.repeat(32)}`

const bytes16Pattern = /^0x[0-9a-fA-F]{32}$/

/** A fresh random 16-byte value, e.g. an order reference. */
export function randomBytes16(): Hex {
  const bytes = crypto.getRandomValues(new Uint8Array(16))
  return `0x${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`
}

export function packRef(orderReference: Hex, acquirerId: Hex = ZERO_BYTES16): Hex {
  for (const [name, value] of [['orderReference', orderReference], ['acquirerId', acquirerId]] as const) {
    if (!bytes16Pattern.test(value)) throw new BaseError(`${name} must be 0x + 32 hex digits, got ${value}`)
  }
  return `0x${orderReference.slice(2)}${acquirerId.slice(2)}`.toLowerCase() as Hex
}

export function splitRef(ref: Hex): { orderReference: Hex; acquirerId: Hex } {
  const hex = ref.toLowerCase()
  return { orderReference: `0x${hex.slice(2, 34)}`, acquirerId: `0x${hex.slice(34, 66)}` }
}
