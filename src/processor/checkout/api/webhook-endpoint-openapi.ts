/**
 * The webhook endpoint part of the merchant API's OpenAPI document (issue 38 item 7), spliced in by
 * `openapi.ts`, with the parts the sections share (`openapi-parts.ts`). Request
 * schemas are the routes' own (`schemas.ts`).
 */
import { openApi } from '../../../platform/http/index.js'
import { operation, problem } from './openapi-parts.js'
import { changeWebhookEndpointSchema, rotateWebhookSecretSchema } from './schemas.js'
import { DEFAULT_OVERLAP_HOURS, MAX_LIVE_WEBHOOK_SECRETS } from './webhook-endpoint-service.js'

const { json, nullable, ref, responseRef, TIME } = openApi

const RETRY_AFTER = { 'Retry-After': { required: true, description: 'seconds to wait before retrying', schema: { type: 'string', pattern: '^[0-9]+$' } } }

/** The replica's WEBHOOK_ENCRYPTION_KEY does not open the secrets (not the delivery workers' key). */
const UNOPENABLE = 'this replica cannot open the webhook secrets (its `WEBHOOK_ENCRYPTION_KEY` is not the delivery workers’): nothing changed; another replica may answer'
const unavailable = (description: string) => ({ ...problem(description), headers: RETRY_AFTER })

export function webhookEndpointPaths() {
  return {
    '/api/v1/webhook-endpoint': {
      get: operation('Read the webhook endpoint', 'The merchant’s webhook URL and the secrets that sign its webhooks now (when each was made and stops signing, never the secret itself).', {}, {
        '200': { description: 'The endpoint.', content: json(ref('WebhookEndpoint')) },
        '503': unavailable(`${UNOPENABLE}.`),
      }),
      put: operation(
        'Change the webhook URL',
        'Webhooks, those pending included, go to `webhookUrl` from their next attempt. An http or https URL without credentials, at most 2048 characters; off chain 31337 https only and no loopback, private or link-local address written in it (a host name is vetted when the delivery looks it up).',
        { requestBody: { required: true, content: json(changeWebhookEndpointSchema.body) } },
        {
          '200': { description: 'The endpoint, changed.', content: json(ref('WebhookEndpoint')) },
          '400': responseRef('BadRequest'),
          '413': responseRef('PayloadTooLarge'),
          '415': responseRef('UnsupportedMediaType'),
          '503': unavailable(`${UNOPENABLE}.`),
        },
      ),
    },
    '/api/v1/webhook-endpoint/rotate-secret': {
      post: operation(
        'Rotate the webhook secret',
        `A new secret signs this merchant’s webhooks from now on, and those signing now keep signing for \`overlapHours\` more (default ${DEFAULT_OVERLAP_HOURS}; 0 ends them at once, for a leaked secret): during the overlap every delivery carries one signature per live secret, so a receiver holding the old or the new one verifies it. The new secret is in this answer only. At most ${MAX_LIVE_WEBHOOK_SECRETS} secrets sign at once. Other merchants’ secrets do not change. No body, or \`{ "overlapHours": n }\`.`,
        { requestBody: { required: false, content: json(rotateWebhookSecretSchema.body) } },
        {
          '201': { description: 'Rotated.', headers: { 'Cache-Control': { required: true, schema: { const: 'no-store' } } }, content: json(ref('WebhookSecretRotation')) },
          '400': responseRef('BadRequest'),
          '409': problem(`${MAX_LIVE_WEBHOOK_SECRETS} secrets sign for the merchant already (\`param\`: \`overlapHours\`): wait for the next one to end, or rotate with \`overlapHours\` 0.`),
          '413': responseRef('PayloadTooLarge'),
          '415': responseRef('UnsupportedMediaType'),
          '429': { ...problem('More than `WEBHOOK_ROTATIONS_PER_HOUR` (10) rotations of this merchant an hour on this replica; nothing changed.'), headers: RETRY_AFTER },
          '503': unavailable(`No webhook secret exists yet (no delivery worker has started), or ${UNOPENABLE}; retry after \`Retry-After\` seconds.`),
        },
      ),
    },
  }
}

export function webhookEndpointSchemas() {
  const endpoint = {
    type: 'object',
    additionalProperties: false,
    required: ['webhookUrl', 'secrets'],
    properties: {
      webhookUrl: { type: 'string', format: 'uri' },
      secrets: {
        type: 'array',
        minItems: 1,
        maxItems: MAX_LIVE_WEBHOOK_SECRETS,
        description: 'the secrets that sign its webhooks now, newest first',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['createdAt', 'expiresAt'],
          properties: { createdAt: TIME, expiresAt: { ...nullable(TIME), description: 'when it stops signing; null for the newest' } },
        },
      },
    },
  }
  return {
    WebhookEndpoint: endpoint,
    WebhookSecretRotation: {
      ...endpoint,
      required: [...endpoint.required, 'secret'],
      properties: { ...endpoint.properties, secret: { type: 'string', pattern: '^whsec_[A-Za-z0-9+/]{43}=$', description: 'the new secret (Standard Webhooks form), shown in this answer only' } },
    },
  }
}
