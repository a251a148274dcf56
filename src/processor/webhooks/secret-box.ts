/**
 * The master webhook secrets at rest: AES-256-GCM under a key from the environment
 * (WEBHOOK_ENCRYPTION_KEY; its SHA-256 is the AES key), so a copy of the database (a backup, a replica, a
 * read-only role) does not hold what signs every merchant's webhooks. A sealed secret is
 * `sealed:v1:<key id>:<base64 of iv, tag, ciphertext>`; the key id (the first 8 hex of the key's own
 * SHA-256 under another label) tells a wrong key from a damaged value. A value still in the clear
 * (`whsec_…`, written before encryption) opens as it is; the delivery worker seals those at start.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto'
import type { WebhookKeyOptions } from '../../config/index.js'
import type { SecretSealer } from '../db/index.js'
import { BaseError } from '../../errors/index.js'
import { resolveWebhookEncryptionKey } from './local-secret-key.js'

/** The stored secrets were sealed under another WEBHOOK_ENCRYPTION_KEY, or are damaged: nothing can sign. */
export class SecretKeyMismatchError extends BaseError {
  override name = 'SecretKeyMismatchError'
}

const PREFIX = 'sealed:v1:'
const IV_BYTES = 12
const TAG_BYTES = 16

/** The sealer of WEBHOOK_ENCRYPTION_KEY (on chain 31337 without it, the local key, created once). */
export async function openSecretBox(options: WebhookKeyOptions): Promise<SecretSealer> {
  return createSecretBox(await resolveWebhookEncryptionKey(options))
}

export function createSecretBox(keyMaterial: string): SecretSealer {
  const key = createHash('sha256').update(keyMaterial).digest()
  const keyId = createHash('sha256').update('webhook-secret-key-id:').update(key).digest('hex').slice(0, 8)
  return {
    seal(secret) {
      const iv = randomBytes(IV_BYTES)
      const cipher = createCipheriv('aes-256-gcm', key, iv)
      const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()])
      return `${PREFIX}${keyId}:${Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64')}`
    },
    open(stored) {
      if (!stored.startsWith(PREFIX)) return stored
      const [id, payload = ''] = stored.slice(PREFIX.length).split(':')
      if (id !== keyId) {
        throw new SecretKeyMismatchError(`the webhook secrets in the database were encrypted under another WEBHOOK_ENCRYPTION_KEY (key id ${id}, this one is ${keyId})`, { details: { stored: id, given: keyId } })
      }
      const bytes = Buffer.from(payload, 'base64')
      const decipher = createDecipheriv('aes-256-gcm', key, bytes.subarray(0, IV_BYTES))
      decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES))
      try {
        return Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8')
      } catch (error) {
        throw new SecretKeyMismatchError('a webhook secret in the database does not open under WEBHOOK_ENCRYPTION_KEY (damaged)', { cause: error })
      }
    },
    isSealed: (stored) => stored.startsWith(PREFIX),
    holds: (stored) => stored.startsWith(`${PREFIX}${keyId}:`),
  }
}
