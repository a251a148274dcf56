/**
 * The payment page's ephemeral token (PROCESSOR.md §5): a random bearer token handed out with a charge
 * (and by each payment-page load), valid for at most five minutes and good for one session call. Only its
 * SHA-256 is stored, so a database read never yields a usable token.
 */
import { createHash, randomBytes } from 'node:crypto'

export const EPHEMERAL_TOKEN_TTL_MS = 5 * 60_000

export interface IssuedToken {
  token: string
  hash: string
  expiresAt: Date
}

export const hashEphemeralToken = (token: string) => createHash('sha256').update(token).digest('hex')

/**
 * A fresh token expiring five minutes after `issuedAt`, or at `notAfter` when that is sooner (the charge's
 * deadline). A new charge passes its own creation time, so the token never outlives it by the clock's tick.
 */
export function issueEphemeralToken(notAfter?: Date, issuedAt = Date.now()): IssuedToken {
  const token = `et_${randomBytes(32).toString('base64url')}`
  const expiresAt = new Date(Math.min(issuedAt + EPHEMERAL_TOKEN_TTL_MS, notAfter?.getTime() ?? Infinity))
  return { token, hash: hashEphemeralToken(token), expiresAt }
}
