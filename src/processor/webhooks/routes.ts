/**
 * The merchant API's webhook routes (PROCESSOR.md §4), as a fastify plugin the checkout server registers
 * behind its mutual-TLS authentication, handing in how to read a request's merchant:
 *
 *   app.register(webhookRoutes, { db, getMerchantId: (request) => … })
 *
 * - `GET /api/v1/webhook-deliveries?chargeId=&status=&cursor=&limit=` — the merchant's events, newest
 *   first, each with its attempts (newest first); `nextCursor` pages on (keyset, stable while events
 *   arrive).
 * - `POST /api/v1/webhook-deliveries/:id/retry` — queues the event again now, whatever its status, with
 *   a fresh retry window; 202 with the event, 404 when it is not the merchant's; 429 with Retry-After
 *   past `retriesPerMinute` of the merchant's retries on this replica (each one bypasses the backoff and
 *   the circuit breaker's pause, so unlimited retries would be a way around both).
 *
 * Query and path are validated by schema (unknown parameters refused); every error is
 * `application/problem+json` with `param` naming the offending parameter.
 */
import rateLimit from '@fastify/rate-limit'
import type { FastifyError, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import type { Database } from '../db/index.js'
import { findWebhookDelivery, listWebhookDeliveries, requeueWebhook, type WebhookDelivery, type WebhookStatus } from '../db/index.js'
import { problem } from '../../wire/index.js'
import { BaseError } from '../../errors/index.js'

export interface WebhookRoutesOptions {
  db: Database
  /** The authenticated merchant of the request (the client certificate's). */
  getMerchantId(request: FastifyRequest): string
  /** Manual retries one merchant may ask of this replica per minute. */
  retriesPerMinute: number
}

const PROBLEM_TYPE = 'application/problem+json; charset=utf-8'
const DEFAULT_LIMIT = 20
const MAX_LIMIT = 100
const CURSOR = /^s(\d{1,18})$/

/**
 * An object schema that refuses unknown keys. `propertyNames` as well as `additionalProperties`, because
 * fastify's default validator removes additional properties instead of failing on them.
 */
const closedObject = (properties: Record<string, object>, required: string[] = []) => ({
  type: 'object',
  properties,
  required,
  additionalProperties: false,
  propertyNames: { enum: Object.keys(properties) },
})

export const listQuery = closedObject({
  chargeId: { type: 'string', minLength: 1, maxLength: 200 },
  status: { type: 'string', enum: ['pending', 'delivered', 'failed'] },
  cursor: { type: 'string', pattern: CURSOR.source },
  limit: { type: 'integer', minimum: 1, maximum: MAX_LIMIT },
})

export const eventParams = closedObject({ id: { type: 'string', pattern: '^msg_[0-9a-f]{24}$' } }, ['id'])

interface ListQuery {
  chargeId?: string
  status?: WebhookStatus
  cursor?: string
  limit?: number
}

export const webhookRoutes: FastifyPluginAsync<WebhookRoutesOptions> = async (app, { db, getMerchantId, retriesPerMinute }) => {
  await app.register(rateLimit, {
    global: false,
    keyGenerator: getMerchantId,
    errorResponseBuilder: (_request, { after }) =>
      Object.assign(new BaseError(`more than ${retriesPerMinute} manual retries a minute; retry in ${after}`), { statusCode: 429 }),
  })
  app.setErrorHandler((error: FastifyError, request, reply) => {
    if (error.validation) {
      const [param, detail] = describeValidation(error)
      return sendProblem(reply, 400, detail, param)
    }
    if (error.statusCode && error.statusCode >= 400 && error.statusCode < 500) return sendProblem(reply, error.statusCode, error.message)
    request.log.error(error)
    return sendProblem(reply, 500, 'the request could not be answered; it has been logged')
  })

  app.get<{ Querystring: ListQuery }>('/api/v1/webhook-deliveries', { schema: { querystring: listQuery } }, async (request) => {
    const { chargeId, status, cursor, limit = DEFAULT_LIMIT } = request.query
    const rows = await listWebhookDeliveries(db.pool, {
      merchantId: getMerchantId(request),
      chargeId,
      status,
      before: cursor ? CURSOR.exec(cursor)![1] : undefined,
      limit: limit + 1,
    })
    const page = rows.slice(0, limit)
    return { deliveries: page.map(view), nextCursor: rows.length > limit ? `s${page.at(-1)!.sequence}` : null }
  })

  const retryLimit = { max: retriesPerMinute, timeWindow: 60_000 }
  app.post<{ Params: { id: string } }>('/api/v1/webhook-deliveries/:id/retry', { schema: { params: eventParams }, config: { rateLimit: retryLimit } }, async (request, reply) => {
    const merchantId = getMerchantId(request)
    const { id } = request.params
    // Read back in the same transaction: the workers are woken at commit, so the answer is the event as
    // queued, not whatever a worker that was quicker than this reply has made of it since.
    const requeued = await db.transaction(async (client) => ((await requeueWebhook(client, merchantId, id)) ? findWebhookDelivery(client, merchantId, id) : undefined))
    if (!requeued) return sendProblem(reply, 404, `no webhook delivery ${id}`, 'id')
    return reply.code(202).send(view(requeued))
  })
}

const view = ({ sequence: _sequence, ...delivery }: WebhookDelivery) => delivery

function sendProblem(reply: FastifyReply, status: number, detail: string, param?: string) {
  return reply.code(status).type(PROBLEM_TYPE).send(problem(status, detail, param))
}

/** The parameter a schema failure is about and a sentence for it. */
function describeValidation(error: FastifyError): [string | undefined, string] {
  const [first] = error.validation!
  const where = error.validationContext === 'params' ? 'path parameter' : 'query parameter'
  const unknown = (first?.params as { propertyName?: string } | undefined)?.propertyName ?? (first as { propertyName?: string } | undefined)?.propertyName
  if (first?.keyword === 'propertyNames' || unknown) return [unknown, `unknown ${where} "${unknown}"`]
  const missing = (first?.params as { missingProperty?: string } | undefined)?.missingProperty
  if (missing) return [missing, `${where} ${missing} is required`]
  const param = first?.instancePath.replace(/^\//, '') || undefined
  return [param, `${where} ${param ?? ''} ${first?.message ?? 'is invalid'}`.replace(/ {2,}/g, ' ')]
}
