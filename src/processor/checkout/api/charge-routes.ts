/**
 * The charge endpoints of the merchant API (PROCESSOR.md §4), registered under `/api/v1` behind the
 * merchant authentication of `build-app.ts` (`request.merchant`).
 */
import type { FastifyPluginAsync } from 'fastify'
import { refuseBody } from './no-body.js'
import type { ChargeService, CreateChargeRequest, ListChargesQuery } from './charge-service.js'
import { chargeIdSchema, createChargeSchema, listChargesSchema } from './schemas.js'
import { strictValidatorCompiler } from './strict-validator.js'

export interface ChargeRoutesOptions {
  service: ChargeService
}

export const chargeRoutes: FastifyPluginAsync<ChargeRoutesOptions> = async (api, { service }) => {
  api.setValidatorCompiler(strictValidatorCompiler)

  api.post<{ Body: CreateChargeRequest; Headers: { 'idempotency-key'?: string } }>('/charges', { schema: createChargeSchema }, async (request, reply) => {
    const { charge, replayed } = await service.create(request.merchant, request.body, request.headers['idempotency-key'])
    if (replayed) void reply.header('idempotent-replayed', 'true')
    return reply.status(201).header('location', `/api/v1/charges/${charge.id}`).send(charge)
  })

  api.get<{ Querystring: ListChargesQuery }>('/charges', { schema: listChargesSchema }, (request) => service.list(request.merchant, request.query))

  api.get<{ Params: { id: string } }>('/charges/:id', { schema: chargeIdSchema }, (request) => service.get(request.merchant, request.params.id))

  api.get<{ Params: { id: string } }>('/charges/:id/payments', { schema: chargeIdSchema }, (request) => service.payments(request.merchant, request.params.id))

  api.post<{ Params: { id: string }; Body: unknown }>('/charges/:id/cancel', { schema: chargeIdSchema }, (request) => {
    refuseBody(request.body)
    return service.cancel(request.merchant, request.params.id)
  })
}
