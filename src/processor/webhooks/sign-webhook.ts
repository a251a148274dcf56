/**
 * Standard Webhooks signing: `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, one per live secret,
 * space-separated, so a receiver holding any one of them verifies the request.
 */
import { createHmac } from 'node:crypto'
import { merchantKey } from './merchant-secret.js'
import { BaseError } from '../../errors/index.js'

export interface SignedWebhook {
  id: string
  merchantId: string
  body: string
  /** The master secrets live now, newest first. */
  secrets: string[]
  timestamp?: Date
}

export function webhookHeaders({ id, merchantId, body, secrets, timestamp = new Date() }: SignedWebhook): Record<string, string> {
  if (secrets.length === 0) throw new BaseError('no live webhook secret to sign with')
  const seconds = Math.floor(timestamp.getTime() / 1000)
  const signatures = secrets.map((secret) => `v1,${createHmac('sha256', merchantKey(secret, merchantId)).update(`${id}.${seconds}.${body}`).digest('base64')}`)
  return {
    'content-type': 'application/json',
    'webhook-id': id,
    'webhook-timestamp': String(seconds),
    'webhook-signature': signatures.join(' '),
  }
}
