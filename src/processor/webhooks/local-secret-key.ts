/**
 * The keys a local devnet keeps in `<WEBHOOK_DATA_DIR>` when the environment does not give them (chain
 * 31337 only: off it the options refuse to start without them), created on first start with mode 0600,
 * where the demo store and `npm run admin` find them too:
 * - `secret-key`: the first master secret (WEBHOOK_SECRET_KEY);
 * - `encryption-key`: what encrypts the master secrets in the database (WEBHOOK_ENCRYPTION_KEY).
 */
import { randomBytes } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { WebhookKeyOptions, WebhookOptions } from '../../config/index.js'
import { generateWebhookSecret } from '../db/index.js'

export const localSecretKeyPath = (dataDir: string) => join(dataDir, 'secret-key')
const localEncryptionKeyPath = (dataDir: string) => join(dataDir, 'encryption-key')

export async function resolveWebhookSecretKey(options: Pick<WebhookOptions, 'secretKey' | 'dataDir'>): Promise<string> {
  return options.secretKey ?? resolveLocalKey(options.dataDir, localSecretKeyPath(options.dataDir), generateWebhookSecret)
}

export async function resolveWebhookEncryptionKey(options: WebhookKeyOptions): Promise<string> {
  return options.encryptionKey ?? resolveLocalKey(options.dataDir, localEncryptionKeyPath(options.dataDir), () => randomBytes(32).toString('base64'))
}

export const readLocalSecretKey = (dataDir: string) => readKeyFile(localSecretKeyPath(dataDir))

async function resolveLocalKey(dataDir: string, path: string, generate: () => string): Promise<string> {
  const existing = readKeyFile(path)
  if (existing) return existing
  const key = generate()
  await mkdir(dataDir, { recursive: true, mode: 0o700 })
  // Two pieces starting together: the first file written wins, and both use it.
  await writeFile(path, `${key}\n`, { mode: 0o600, flag: 'wx' }).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'EEXIST') throw error
  })
  return readKeyFile(path) ?? key
}

function readKeyFile(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8').trim() || undefined
  } catch {
    return undefined
  }
}
