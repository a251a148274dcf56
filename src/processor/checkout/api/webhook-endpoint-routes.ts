/**
 * The webhook endpoint routes of the merchant API (issue 38 item 7), registered under `/api/v1` behind the
 * merchant authentication of `build-app.ts`, with the strict validation of the other routes:
 * `GET /webhook-endpoint`, `PUT /webhook-endpoint { webhookUrl }` and
 * `POST /webhook-endpoint/rotate-secret { overlapHours? }` (no body: the default overlap). A rotation makes
 * every delivery worker reload the secrets, and with overlap 0 the live-secret limit does not hold it
 * back, so rotations are limited: `rotationsPerHour` per merchant and replica, past which a 429 with
 * Retry-After.
 */
import rateLimit from '@fastify/rate-limit'
import type { FastifyPluginAsync } from 'fastify'
import { changeWebhookEndpointSchema, rotateWebhookSecretSchema } from './schemas.js'
import { strictValidatorCompiler } from './strict-validator.js'
import type { ChangeWebhookEndpointRequest, RotateWebhookSecretRequest, WebhookEndpointService } from './webhook-endpoint-service.js'
import { BaseError } from '../../../errors/index.js'

export interface WebhookEndpointRoutesOptions {
  endpoint: WebhookEndpointService
  rotationsPerHour: number
}

export const webhookEndpointRoutes: FastifyPluginAsync<WebhookEndpointRoutesOptions> = async (api, { endpoint, rotationsPerHour }) => {
  api.setValidatorCompiler(strictValidatorCompiler)
  await api.register(rateLimit, {
    global: false,
    keyGenerator: (request) => request.merchant.id,
    errorResponseBuilder: (_request, { after }) =>
      Object.assign(new BaseError(`more than ${rotationsPerHour} webhook secret rotations an hour; retry in ${after}`), { statusCode: 429 }),
  })

  api.get('/webhook-endpoint', (request) => endpoint.get(request.merchant))

  api.put<{ Body: ChangeWebhookEndpointRequest }>('/webhook-endpoint', { schema: changeWebhookEndpointSchema }, (request) => endpoint.change(request.merchant, request.body))

  api.post<{ Body: RotateWebhookSecretRequest }>(
    '/webhook-endpoint/rotate-secret',
    {
      schema: rotateWebhookSecretSchema,
      config: { rateLimit: { max: rotationsPerHour, timeWindow: 3_600_000 } },
      preValidation: async (request) => {
        request.body ??= {}
      },
    },
    async (request, reply) => reply.status(201).header('cache-control', 'no-store').send(await endpoint.rotateSecret(request.merchant, request.body)),
  )
}
