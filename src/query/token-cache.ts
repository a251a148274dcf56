/**
 * Token symbol and decimals by address, read from the store once; a miss (a token first seen after
 * this thread loaded the cache) re-reads the store rather than rendering an unknown token.
 */
import { readTokens } from '../store/meta.js'
import type { Store } from '../store/open-store.js'
import type { TokenInfo } from '../store/record.js'

export class TokenCache {
  #byBareHex = new Map<string, TokenInfo>()
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

  #load(): void {
    this.#byBareHex = new Map([...readTokens(this.#store)].map(([address, info]) => [address.slice(2), info]))
  }
}
