/**
 * The receiving side, for the demo store and the tests: a request is genuine when any of the given
 * secrets verifies it with the `standardwebhooks` package (signature and a timestamp within 5 minutes).
 * Holding the old and the new secret during a rotation's overlap keeps a receiver working throughout.
 */
import { Webhook, WebhookVerificationError } from 'standardwebhooks'

export type WebhookRequestHeaders = Headers | Record<string, string | string[] | undefined>

/** Returns the parsed payload; throws WebhookVerificationError when no secret verifies it. */
export function verifyWebhook(secrets: string[], headers: WebhookRequestHeaders, body: string | Buffer): unknown {
  const flat = flattenHeaders(headers)
  let lastError: unknown = new WebhookVerificationError('no secret to verify with')
  for (const secret of secrets) {
    try {
      return new Webhook(secret).verify(body, flat)
    } catch (error) {
      lastError = error
    }
  }
  throw lastError
}

function flattenHeaders(headers: WebhookRequestHeaders): Record<string, string> {
  if (headers instanceof Headers) return Object.fromEntries(headers)
  const flat: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) flat[name] = Array.isArray(value) ? value.join(', ') : value
  return flat
}
