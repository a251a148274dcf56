/**
 * Token symbol and decimals by address, read from the store once; a miss (a token first seen after
 * this thread loaded the cache) re-reads the store rather than rendering an unknown token.
 */
import { readTokens } from '../store/meta.js'
import type { Store } from '../store/open-store.js'
import type { TokenInfo } from '../store/record.js'
import type { Hex } from '../types/settlement.js'

export class TokenCache {
  #tokens: Map<Hex, TokenInfo>
  #store: Store

  constructor(store: Store) {
    this.#store = store
    this.#tokens = readTokens(store)
  }

  get(address: Buffer): TokenInfo {
    const hex = `0x${address.toString('hex')}` as Hex
    let token = this.#tokens.get(hex)
    if (!token) {
      this.#tokens = readTokens(this.#store)
      token = this.#tokens.get(hex) ?? { address: hex, symbol: '', decimals: 0 }
    }
    return token
  }
}
