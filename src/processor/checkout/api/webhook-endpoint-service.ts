/**
 * The merchant's webhook endpoint over the merchant API (issue 38 item 7), so an integration needs no
 * database access: read and change its webhook URL (checked as the CA checks it at creation, plus no
 * internal address written in it off the local chain), and rotate its signing secret with an overlap, as
 * `npm run admin -- rotate-webhook-secret` does for everyone, but for this merchant alone
 * (`rotateWebhookSecret` with `merchantId`). The new secret is in the rotation's answer and nowhere else
 * the API shows: reads list the live secrets' times, never a secret.
 */
import type { WebhookKeyOptions } from '../../../config/index.js'
import { ProblemError } from '../../../platform/http/index.js'
import { liveWebhookSecrets, merchantSigningSecrets, NoWebhookSecretError, rotateWebhookSecret, setMerchantWebhookUrl, WebhookSecretLimitError } from '../../db/index.js'
import type { Database, Merchant, SecretSealer } from '../../db/index.js'
import { deriveMerchantSecret, openSecretBox, parseWebhookUrl, SecretKeyMismatchError } from '../../webhooks/index.js'

/** Secrets that may sign for one merchant at once; a rotation past it is refused unless it ends the others now (overlap 0). */
export const MAX_LIVE_WEBHOOK_SECRETS = 3
export const DEFAULT_OVERLAP_HOURS = 24
export const MAX_OVERLAP_HOURS = 168

export interface WebhookEndpointJson {
  webhookUrl: string
  /** The secrets that sign its webhooks now, newest first: when each was made and when it stops (null: the current one). */
  secrets: { createdAt: string; expiresAt: string | null }[]
}

export interface WebhookSecretRotationJson extends WebhookEndpointJson {
  /** The new secret (`whsec_…`): shown in this answer only. */
  secret: string
}

export interface ChangeWebhookEndpointRequest {
  webhookUrl: string
}

export interface RotateWebhookSecretRequest {
  overlapHours?: number
}

export interface WebhookEndpointService {
  get(merchant: Merchant): Promise<WebhookEndpointJson>
  change(merchant: Merchant, request: ChangeWebhookEndpointRequest): Promise<WebhookEndpointJson>
  rotateSecret(merchant: Merchant, request: RotateWebhookSecretRequest): Promise<WebhookSecretRotationJson>
}

export interface WebhookEndpointServiceParams {
  db: Database
  webhookKeys: WebhookKeyOptions
  /** Off the local chain: https only, and no internal address in the URL. */
  localChain: boolean
}

/** This replica's WEBHOOK_ENCRYPTION_KEY is not the delivery workers': an operator's fault, said as such. */
function unopenable(error: unknown): never {
  if (error instanceof SecretKeyMismatchError) throw new ProblemError(503, "this replica cannot open the webhook secrets (its WEBHOOK_ENCRYPTION_KEY is not the delivery workers'); nothing changed, retry later", undefined, { cause: error })
  throw error
}

export function webhookEndpointService({ db, webhookKeys, localChain }: WebhookEndpointServiceParams): WebhookEndpointService {
  // Opened at the first use: on the local chain that may create the local key, which only this route needs.
  let sealer: Promise<SecretSealer> | undefined
  const openSealer = () => (sealer ??= openSecretBox(webhookKeys).catch((error: unknown) => {
    sealer = undefined
    throw error
  }))
  const signingTimes = async (merchantId: string): Promise<WebhookEndpointJson['secrets']> => {
    const { secrets } = await liveWebhookSecrets(db.pool, await openSealer()).catch(unopenable)
    return merchantSigningSecrets(secrets, merchantId).map((s) => ({ createdAt: s.createdAt.toISOString(), expiresAt: s.expiresAt?.toISOString() ?? null }))
  }

  return {
    get: async (merchant) => ({ webhookUrl: merchant.webhookUrl, secrets: await signingTimes(merchant.id) }),

    async change(merchant, { webhookUrl }) {
      const url = parseWebhookUrl(webhookUrl, { httpsOnly: !localChain, refuseInternal: !localChain })
      // Read first: a replica that cannot answer refuses before it changes anything.
      const secrets = await signingTimes(merchant.id)
      const changed = await setMerchantWebhookUrl(db.pool, merchant.id, url)
      return { webhookUrl: changed!.webhookUrl, secrets }
    },

    async rotateSecret(merchant, { overlapHours = DEFAULT_OVERLAP_HOURS }) {
      const opened = await openSealer()
      const rotation = await rotateWebhookSecret(db, opened, { overlapHours, merchantId: merchant.id, maxLive: MAX_LIVE_WEBHOOK_SECRETS }).catch((error: unknown) => {
        if (error instanceof WebhookSecretLimitError) {
          const until = error.nextExpiry ? `; the next one ends at ${error.nextExpiry.toISOString()}` : ''
          throw new ProblemError(409, `${error.limit} webhook secrets sign for this merchant already${until}: wait for it, or rotate with overlapHours 0, which ends them all now`, 'overlapHours')
        }
        if (error instanceof NoWebhookSecretError) throw new ProblemError(503, `${error.message}; retry later`, undefined, { cause: error })
        return unopenable(error)
      })
      return { secret: deriveMerchantSecret(rotation.secret.secret, merchant.id), webhookUrl: merchant.webhookUrl, secrets: await signingTimes(merchant.id) }
    },
  }
}
