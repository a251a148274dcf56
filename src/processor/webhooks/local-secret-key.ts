/**
 * The first master secret: WEBHOOK_SECRET_KEY, or on chain 31337 a random one kept in
 * `<WEBHOOK_DATA_DIR>/secret-key` (mode 0600), created on first start, where the demo store and
 * `npm run admin -- webhook-secret` find it too. Off 31337 the options refuse to start without the key.
 */
import { readFileSync } from 'node:fs'
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { WebhookOptions } from '../../config/index.js'
import { generateWebhookSecret } from '../db/index.js'

export const localSecretKeyPath = (dataDir: string) => join(dataDir, 'secret-key')

export async function resolveWebhookSecretKey(options: Pick<WebhookOptions, 'secretKey' | 'dataDir'>): Promise<string> {
  if (options.secretKey) return options.secretKey
  const existing = readLocalSecretKey(options.dataDir)
  if (existing) return existing
  const secret = generateWebhookSecret()
  await mkdir(options.dataDir, { recursive: true, mode: 0o700 })
  // Two pieces starting together: the first file written wins, and both use it.
  await writeFile(localSecretKeyPath(options.dataDir), `${secret}\n`, { mode: 0o600, flag: 'wx' }).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'EEXIST') throw error
  })
  return readLocalSecretKey(options.dataDir) ?? secret
}

export function readLocalSecretKey(dataDir: string): string | undefined {
  try {
    return readFileSync(localSecretKeyPath(dataDir), 'utf8').trim() || undefined
  } catch {
    return undefined
  }
}
