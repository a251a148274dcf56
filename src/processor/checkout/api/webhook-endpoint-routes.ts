/**
 * The webhook endpoint routes of the merchant API (issue 38 item 7), registered under `/api/v1` behind the
 * merchant authentication of `build-app.ts`, with the strict validation of the other routes:
 * `GET /webhook-endpoint`, `PUT /webhook-endpoint { webhookUrl }` and
 * `POST /webhook-endpoint/rotate-secret { overlapHours? }` (no body: the default overlap).
 */
import type { FastifyPluginAsync } from 'fastify'
import { changeWebhookEndpointSchema, rotateWebhookSecretSchema } from './schemas.js'
import { strictValidatorCompiler } from './strict-validator.js'
import type { ChangeWebhookEndpointRequest, RotateWebhookSecretRequest, WebhookEndpointService } from './webhook-endpoint-service.js'

export interface WebhookEndpointRoutesOptions {
  endpoint: WebhookEndpointService
}

export const webhookEndpointRoutes: FastifyPluginAsync<WebhookEndpointRoutesOptions> = async (api, { endpoint }) => {
  api.setValidatorCompiler(strictValidatorCompiler)

  api.get('/webhook-endpoint', (request) => endpoint.get(request.merchant))

  api.put<{ Body: ChangeWebhookEndpointRequest }>('/webhook-endpoint', { schema: changeWebhookEndpointSchema }, (request) => endpoint.change(request.merchant, request.body))

  api.post<{ Body: RotateWebhookSecretRequest }>(
    '/webhook-endpoint/rotate-secret',
    {
      schema: rotateWebhookSecretSchema,
      preValidation: async (request) => {
        request.body ??= {}
      },
    },
    async (request, reply) => reply.status(201).header('cache-control', 'no-store').send(await endpoint.rotateSecret(request.merchant, request.body)),
  )
}
