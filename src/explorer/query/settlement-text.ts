/**
 * A settlement as the API sends it: its JSON with its token's symbol and decimals. One place for the
 * pages (key-views.ts) and the live feed, which render it the same way.
 */
import { fieldHex, settlementJson, type StoredSettlement } from '../store/index.js'
import type { TokenCache } from './token-cache.js'

export const settlementText = (s: StoredSettlement, tokens: TokenCache): string => settlementJson(s, tokens.get(fieldHex(s, 'token')))
