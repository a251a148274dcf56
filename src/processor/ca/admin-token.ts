/**
 * The admin API's bearer token: CA_ADMIN_TOKEN, or on chain 31337 a random one kept in
 * `<CA_DATA_DIR>/admin-token` (mode 0600), created on first start, where `npm run admin` finds it too.
 * Tokens are compared through their SHA-256 digests with timingSafeEqual: equal lengths, constant time.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { CaOptions } from '../../config/index.js'

export interface AdminToken {
  token: string
  /** The local token file, when the token came from one. */
  file?: string
}

export const localTokenPath = (dataDir: string) => join(dataDir, 'admin-token')

export async function resolveAdminToken(options: Pick<CaOptions, 'adminToken' | 'dataDir'>): Promise<AdminToken> {
  if (options.adminToken) return { token: options.adminToken }
  const file = localTokenPath(options.dataDir)
  const existing = readLocalAdminToken(options.dataDir)
  if (existing) return { token: existing, file }
  await mkdir(options.dataDir, { recursive: true, mode: 0o700 })
  const token = randomBytes(32).toString('base64url')
  await writeFile(file, `${token}\n`, { mode: 0o600, flag: 'wx' })
  return { token, file }
}

export function readLocalAdminToken(dataDir: string): string | undefined {
  try {
    return readFileSync(localTokenPath(dataDir), 'utf8').trim() || undefined
  } catch {
    return undefined
  }
}

/** Whether an `Authorization` header carries the token as `Bearer <token>`. */
export function bearerMatches(authorization: string | undefined, token: string): boolean {
  const presented = /^Bearer +(\S+) *$/i.exec(authorization ?? '')?.[1]
  if (presented === undefined) return false
  const digest = (value: string) => createHash('sha256').update(value).digest()
  return timingSafeEqual(digest(presented), digest(token))
}
