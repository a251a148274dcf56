/**
 * Token symbol and decimals by address, read from the store once; a miss (a token first seen after
 * this thread loaded the cache) re-reads the store rather than rendering an unknown token. Also each
 * token's rendered JSON members, by its raw bytes, for pages written straight from stored records.
 */
import { readTokens } from '../store/index.js'
import type { Store } from '../store/index.js'
import { tokenFieldsJson, type TokenSource } from '../store/index.js'
import type { TokenInfo } from '../store/index.js'

const ADDRESS_BYTES = 20

export class TokenCache implements TokenSource {
  #byBareHex = new Map<string, TokenInfo>()
  /** By the address's last four bytes, then compared whole: no key string to build per settlement. */
  #fieldsByTail = new Map<number, { address: Uint8Array; fields: Uint8Array }[]>()
  #store: Store

  constructor(store: Store) {
    this.#store = store
    this.#load()
  }

  /** By the address as lowercase hex without 0x, as stored settlements hold it. */
  get(addressHex: string): TokenInfo {
    let token = this.#byBareHex.get(addressHex)
    if (!token) {
      this.#load()
      token = this.#byBareHex.get(addressHex) ?? { address: `0x${addressHex}`, symbol: '', decimals: 0 }
    }
    return token
  }

  /** Never reads the store: `undefined` for a token not loaded yet (`get` loads it). */
  fieldsJson(bytes: Uint8Array, offset: number): Uint8Array | undefined {
    const end = offset + ADDRESS_BYTES
    const tail = ((bytes[end - 4]! << 24) | (bytes[end - 3]! << 16) | (bytes[end - 2]! << 8) | bytes[end - 1]!) >>> 0
    const known = this.#fieldsByTail.get(tail)
    for (const { address, fields } of known ?? []) if (sameBytes(address, bytes, offset)) return fields
    const address = Buffer.from(bytes.subarray(offset, end))
    const token = this.#byBareHex.get(address.toString('hex'))
    if (!token) return undefined
    const fields = tokenFieldsJson(token)
    this.#fieldsByTail.set(tail, [...(known ?? []), { address, fields }])
    return fields
  }

  #load(): void {
    this.#byBareHex = new Map([...readTokens(this.#store)].map(([address, info]) => [address.slice(2), info]))
  }
}

function sameBytes(address: Uint8Array, bytes: Uint8Array, offset: number): boolean {
  for (let i = 0; i < ADDRESS_BYTES; i++) if (address[i] !== bytes[offset + i]) return false
  return true
}
