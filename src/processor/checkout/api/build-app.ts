/**
 * The merchant API server (PROCESSOR.md §4): fastify on `node:https` with mutual TLS — a client without a
 * certificate chained to the processor CA, unexpired and not on the loaded CRL, fails in the handshake,
 * before HTTP. Behind it every `/api/v1` route runs for the merchant its certificate names
 * (`request.merchant`); `GET /health`, `/ready`, `/metrics` and `/openapi.json` (openapi.ts) need a valid
 * certificate but no merchant. Bodies are JSON only (anything else 415), 16 KiB at most (413); every refusal is
 * `application/problem+json`.
 * The webhook-deliveries routes (`webhooks/routes.ts`) and the webhook endpoint's sit behind the same authentication.
 */
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply } from 'fastify'
import type { Server } from 'node:https'
import type { TLSSocket } from 'node:tls'
import type { Merchant } from '../../db/index.js'
import type { Database } from '../../db/index.js'
import { DURATION_BUCKETS_SECONDS, type Logger, type Metrics } from '../../../platform/observability/index.js'
import { metricsReply, ProblemError, readyReply, type ReadinessCheck, type Reply } from '../../../platform/http/index.js'
import { problem } from '../../../wire/index.js'
import { identifyMerchant } from '../tls/identify-merchant.js'
import { webhookRoutes } from '../../webhooks/index.js'
import type { TlsMaterial } from '../tls/load-tls-material.js'
import { chargeRoutes } from './charge-routes.js'
import type { ChargeService } from './charge-service.js'
import { paymentLinkRoutes } from './payment-link-routes.js'
import type { PaymentLinkService } from './payment-link-service.js'
import { reportRoutes, type ReportRoutesOptions } from './report-routes.js'
import { refundRoutes } from './refund-routes.js'
import type { RefundService } from './refund-service.js'
import { checkoutOpenApi } from './openapi.js'
import { documentedOperations, requireDocumentedRoutes } from './documented-routes.js'
import { webhookEndpointRoutes } from './webhook-endpoint-routes.js'
import type { WebhookEndpointService } from './webhook-endpoint-service.js'
import { MAX_BODY_BYTES, problemOf, sendProblem } from './problem-responses.js'

declare module 'fastify' {
  interface FastifyRequest {
    /** The merchant of the request's client certificate (routes under the merchant authentication). */
    merchant: Merchant
  }
}

export interface CheckoutAppParams {
  tls: TlsMaterial
  db: Database
  service: ChargeService
  paymentLinks: PaymentLinkService
  /** What the CSV reports read token decimals and payment-page URLs from. */
  reports: Omit<ReportRoutesOptions, 'db'>
  refunds: RefundService
  webhookEndpoint: WebhookEndpointService
  webhookRotationsPerHour: number
  health(): { healthy: boolean; body: object }
  ready: ReadinessCheck
  /** Served at `/metrics`; every answer is counted in it by status. */
  metrics: Metrics
  log: Logger
  webhookRetriesPerMinute: number
}

export function buildCheckoutApp(params: CheckoutAppParams): FastifyInstance<Server> {
  const { db, log } = params
  const app = Fastify({
    https: { ...params.tls, requestCert: true, rejectUnauthorized: true },
    bodyLimit: MAX_BODY_BYTES,
    logger: false,
    forceCloseConnections: true,
    return503OnClosing: true,
  })
  requireDocumentedRoutes(app, documentedOperations(checkoutOpenApi()))
  app.server.on('tlsClientError', (error: NodeJS.ErrnoException, socket: TLSSocket) => {
    log.debug('TLS handshake refused', { reason: String(socket.authorizationError ?? error.code ?? error.message), remote: socket.remoteAddress })
  })

  app.removeAllContentTypeParsers()
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    if (body === '') return done(null, undefined)
    try {
      done(null, JSON.parse(body as string))
    } catch (error) {
      done(new ProblemError(400, `the body is not valid JSON: ${(error as Error).message}`) as unknown as FastifyError, undefined)
    }
  })
  app.setErrorHandler((error: FastifyError, _request, reply) => sendProblem(reply, problemOf(error, log)))
  app.setNotFoundHandler((request, reply) => sendProblem(reply, problem(404, `no route ${request.method} ${request.url.split('?')[0]}`)))
  app.decorateRequest('merchant', undefined as unknown as Merchant)
  const requests = params.metrics.counter('http_requests_total', 'HTTP requests answered, by method and status')
  const durations = params.metrics.histogram('http_request_duration_seconds', 'Seconds from a request to its answer, by method', DURATION_BUCKETS_SECONDS)
  app.addHook('onResponse', async (request, reply) => {
    requests(1, { method: request.method, status: String(reply.statusCode) })
    durations(reply.elapsedTime / 1000, { method: request.method })
  })

  app.get('/health', async (_request, reply) => {
    const { healthy, body } = params.health()
    return reply.status(healthy ? 200 : 503).send(body)
  })
  const send = (reply: FastifyReply, r: Reply) => reply.status(r.status).headers(r.headers ?? {}).type(r.contentType!).send(r.body)
  app.get('/ready', async (_request, reply) => send(reply, await readyReply(params.ready)))
  app.get('/metrics', async (_request, reply) => send(reply, metricsReply(params.metrics)))

  const openApi = JSON.stringify(checkoutOpenApi())
  app.get('/openapi.json', async (_request, reply) => reply.type('application/json; charset=utf-8').send(openApi))

  app.register(async (merchantApi) => {
    merchantApi.addHook('onRequest', async (request, reply) => {
      try {
        request.merchant = await identifyMerchant(db.pool, request.raw.socket as TLSSocket)
      } catch (error) {
        if (!(error instanceof ProblemError)) throw error
        sendProblem(reply, error.toProblem())
        return reply
      }
    })
    await merchantApi.register(chargeRoutes, { prefix: '/api/v1', service: params.service })
    await merchantApi.register(paymentLinkRoutes, { prefix: '/api/v1', service: params.paymentLinks })
    await merchantApi.register(reportRoutes, { prefix: '/api/v1', db, ...params.reports })
    await merchantApi.register(refundRoutes, { prefix: '/api/v1', refunds: params.refunds })
    await merchantApi.register(webhookEndpointRoutes, { prefix: '/api/v1', endpoint: params.webhookEndpoint, rotationsPerHour: params.webhookRotationsPerHour })
    await merchantApi.register(webhookRoutes, { db, getMerchantId: (request) => request.merchant.id, retriesPerMinute: params.webhookRetriesPerMinute })
  })
  return app as unknown as FastifyInstance<Server>
}
