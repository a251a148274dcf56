/** A webhook signing secret in the Standard Webhooks form `whsec_<base64>`, as settings and merchants write it. */
import { ConfigError } from './parse-env.js'

const PREFIX = 'whsec_'
/** 192 bits: Standard Webhooks asks for 24 to 64 bytes. */
export const MIN_SECRET_BYTES = 24

/** The key bytes of a `whsec_<base64>` secret. */
export function secretKeyBytes(secret: string): Buffer {
  if (!secret.startsWith(PREFIX)) throw new ConfigError('a webhook secret starts with whsec_')
  const base64 = secret.slice(PREFIX.length)
  const bytes = Buffer.from(base64, 'base64')
  if (bytes.toString('base64') !== base64 || bytes.length < MIN_SECRET_BYTES) {
    throw new ConfigError(`a webhook secret is whsec_ and the base64 of at least ${MIN_SECRET_BYTES} bytes`)
  }
  return bytes
}

export const formatSecret = (bytes: Uint8Array) => `${PREFIX}${Buffer.from(bytes).toString('base64')}`
