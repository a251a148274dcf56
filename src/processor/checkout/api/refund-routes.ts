/**
 * The refund endpoints of the merchant API (issue 23), registered under `/api/v1` behind the merchant
 * authentication of `build-app.ts`, with the same strict validation as the charge routes.
 */
import type { FastifyPluginAsync } from 'fastify'
import { refuseBody } from './no-body.js'
import type { CreateRefundRequest, ListRefundsQuery, RefundService } from './refund-service.js'
import { chargeIdSchema, createRefundSchema, listRefundsSchema, refundIdSchema } from './schemas.js'
import { strictValidatorCompiler } from './strict-validator.js'

export interface RefundRoutesOptions {
  refunds: RefundService
}

export const refundRoutes: FastifyPluginAsync<RefundRoutesOptions> = async (api, { refunds }) => {
  api.setValidatorCompiler(strictValidatorCompiler)

  api.post<{ Params: { id: string }; Body: CreateRefundRequest; Headers: { 'idempotency-key'?: string } }>(
    '/charges/:id/refunds',
    { schema: createRefundSchema },
    async (request, reply) => {
      const { refund, replayed } = await refunds.create(request.merchant, request.params.id, request.body, request.headers['idempotency-key'])
      if (replayed) void reply.header('idempotent-replayed', 'true')
      return reply.status(201).header('location', `/api/v1/refunds/${refund.id}`).send(refund)
    },
  )

  api.get<{ Params: { id: string } }>('/charges/:id/refunds', { schema: chargeIdSchema }, (request) => refunds.listOfCharge(request.merchant, request.params.id))

  api.get<{ Querystring: ListRefundsQuery }>('/refunds', { schema: listRefundsSchema }, (request) => refunds.list(request.merchant, request.query))

  api.get<{ Params: { refundId: string } }>('/refunds/:refundId', { schema: refundIdSchema }, (request) => refunds.get(request.merchant, request.params.refundId))

  api.post<{ Params: { refundId: string }; Body: unknown }>('/refunds/:refundId/cancel', { schema: refundIdSchema }, (request) => {
    refuseBody(request.body)
    return refunds.cancel(request.merchant, request.params.refundId)
  })
}
