/**
 * The payment-link endpoints of the merchant API (issue 23), under `/api/v1` behind the merchant
 * authentication of `build-app.ts`: create, read, list, deactivate. Payers use a link on the widget.
 */
import type { FastifyPluginAsync } from 'fastify'
import { refuseBody } from './no-body.js'
import type { CreatePaymentLinkRequest, PaymentLinkService } from './payment-link-service.js'
import { createPaymentLinkSchema, listPaymentLinksSchema, paymentLinkIdSchema } from './schemas.js'
import { strictValidatorCompiler } from './strict-validator.js'

export const paymentLinkRoutes: FastifyPluginAsync<{ service: PaymentLinkService }> = async (api, { service }) => {
  api.setValidatorCompiler(strictValidatorCompiler)

  api.post<{ Body: CreatePaymentLinkRequest }>('/payment-links', { schema: createPaymentLinkSchema }, async (request, reply) => {
    const link = await service.create(request.merchant, request.body)
    return reply.status(201).header('location', `/api/v1/payment-links/${link.id}`).send(link)
  })

  api.get<{ Querystring: { cursor?: string; limit?: string } }>('/payment-links', { schema: listPaymentLinksSchema }, (request) => service.list(request.merchant, request.query))

  api.get<{ Params: { linkId: string } }>('/payment-links/:linkId', { schema: paymentLinkIdSchema }, (request) => service.get(request.merchant, request.params.linkId))

  api.post<{ Params: { linkId: string }; Body: unknown }>('/payment-links/:linkId/deactivate', { schema: paymentLinkIdSchema }, (request) => {
    refuseBody(request.body, 'deactivate')
    return service.deactivate(request.merchant, request.params.linkId)
  })
}
