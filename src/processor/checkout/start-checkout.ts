/**
 * Composes the checkout engine (PROCESSOR.md §4): the chain's supported tokens and fee calculation, the
 * TLS material and the live CRL, the merchant API on mutual TLS, and reconciliation (active on one
 * replica per database, standing by on the others). The database is handed in, so `npm start` can share
 * one; `stop()` leaves it open.
 *
 * The API opens only once reconciliation has a starting point in the database (the first start of the
 * first replica subscribes to the explorer and stores its cursor): a charge is never taken that
 * reconciliation could miss a payment of.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import { createChainClient, endpointsOf } from '../../chain/index.js'
import type { CheckoutOptions } from '../../config/index.js'
import { ConfigError, LOCAL_CHAIN_ID } from '../../config/index.js'
import type { Database } from '../db/index.js'
import type { ProcessorServices } from '../db/index.js'
import { databaseUnavailable, readReconciliationCursor } from '../db/index.js'
import { serviceMetrics, type Logger } from '../../platform/observability/index.js'
import { buildCheckoutApp } from './api/build-app.js'
import { openChargeTerms } from './api/charge-terms.js'
import { chargeService } from './api/charge-service.js'
import { paymentLinkService } from './api/payment-link-service.js'
import { refundService } from './api/refund-service.js'
import { webhookEndpointService } from './api/webhook-endpoint-service.js'
import { startReconciler } from '../reconciliation/index.js'
import { loadTlsMaterial } from './tls/load-tls-material.js'
import { watchRevocations } from './tls/watch-revocations.js'
import { operatorGauges } from './operator-gauges.js'

export interface RunningCheckout {
  /** `https://host:port` */
  url: string
  /** The CA certificate the listener verifies clients against (and that verifies an issued server certificate). */
  caCertificatePem: string
  reconcilerRole(): 'active' | 'standby'
  stop(): Promise<void>
}

export type CheckoutServices = ProcessorServices

const CURSOR_POLL_MS = 100

export async function startCheckout(options: CheckoutOptions, { db, log, metrics = serviceMetrics('checkout') }: CheckoutServices): Promise<RunningCheckout> {
  const publicClient = createChainClient({ ...endpointsOf(options), chainId: options.chainId, pollingIntervalMs: options.pollIntervalMs, log })
  if (options.chainId !== LOCAL_CHAIN_ID && new URL(options.explorerUrl).protocol === 'http:') {
    // Payments are read back from the node before they settle, but which ones to read comes from the feed.
    log.warn('EXPLORER_URL uses plain http off the local chain: anyone on the path can hide or delay settlements', { explorerUrl: options.explorerUrl })
  }
  const terms = await openChargeTerms(options, publicClient, log)
  const stops: (() => Promise<void> | void)[] = [() => terms.stop()]
  const stopAll = async () => {
    while (stops.length > 0) await stops.pop()!()
  }
  try {
    const tls = await loadTlsMaterial(options, log)
    const reconciler = startReconciler(options, { db, publicClient, log })
    stops.push(() => reconciler.stop())
    const health = () => {
      const role = reconciler.role()
      const explorerConnected = reconciler.connected()
      const chainError = terms.lastError()
      const healthy = (role === 'standby' || explorerConnected) && !chainError
      const body = {
        status: healthy ? 'ok' : 'degraded',
        reconciler: { role, explorerConnected, head: reconciler.head() ?? null },
        crlNumber: revocations.crlNumber() ?? null,
        ...(chainError && { chain: chainError.message.split('\n')[0] }),
      }
      return { healthy, body }
    }
    metrics.collected('reconciler_active', '1 while this replica holds the reconciler lock', () => (reconciler.role() === 'active' ? 1 : 0))
    metrics.collected('explorer_connected', "1 while the active reconciler follows the explorer's feed", () => (reconciler.connected() ? 1 : 0))
    metrics.collected('crl_number', 'The CRL loaded into the TLS context (0 before any)', () => revocations.crlNumber() ?? 0)
    const gauges = operatorGauges({ db, metrics, log })
    stops.push(() => gauges.stop())
    const app = buildCheckoutApp({
      tls,
      db,
      service: chargeService({ db, terms, widgetBaseUrl: options.widgetBaseUrl, chargeTtlSeconds: options.chargeTtlSeconds }),
      paymentLinks: paymentLinkService({ db, terms, widgetBaseUrl: options.widgetBaseUrl }),
      reports: { terms, widgetBaseUrl: options.widgetBaseUrl },
      refunds: refundService({ db, terms, widgetBaseUrl: options.widgetBaseUrl, ttlSeconds: options.chargeTtlSeconds }),
      webhookEndpoint: webhookEndpointService({ db, webhookKeys: options.webhookKeys, localChain: options.chainId === LOCAL_CHAIN_ID }),
      log,
      health,
      webhookRetriesPerMinute: options.webhookRetriesPerMinute,
      webhookRotationsPerHour: options.webhookRotationsPerHour,
      // What /health calls degraded, and the database every charge is kept in.
      async ready() {
        const unavailable = await databaseUnavailable(db.pool)
        if (unavailable) return unavailable
        const chainError = terms.lastError()
        if (chainError) return `the node at RPC_URL fails (${chainError.message.split('\n')[0]}): fees cannot be quoted`
        if (reconciler.role() === 'active' && !reconciler.connected()) return 'this replica reconciles charges but does not reach the explorer at EXPLORER_URL'
      },
      metrics,
    })
    stops.push(() => app.close())
    const revocations = await watchRevocations({ db, apply: (crl) => app.server.setSecureContext({ ...tls, crl }), log })
    stops.push(() => revocations.close())

    await waitForReconciliationStart(db, log)
    await app.listen({ host: options.host, port: options.port }).catch((error: NodeJS.ErrnoException) => {
      throw new ConfigError(`CHECKOUT_PORT ${options.port} on ${options.host} is not available (${error.code ?? error.message})`, { cause: error })
    })
    const { port } = app.server.address() as { port: number }
    const url = `https://${options.host}:${port}`
    log.info('checkout engine listening (mutual TLS)', { url, chainId: options.chainId, contract: options.contract, confirmationBlocks: options.confirmationBlocks })
    return {
      url,
      caCertificatePem: tls.ca,
      reconcilerRole: () => reconciler.role(),
      async stop() {
        await stopAll()
        log.info('checkout engine stopped')
      },
    }
  } catch (error) {
    await stopAll()
    throw error
  }
}

async function waitForReconciliationStart(db: Database, log: Logger): Promise<void> {
  for (let waited = false; !(await readReconciliationCursor(db.pool)); waited = true) {
    if (!waited) log.info('waiting for reconciliation to subscribe to the explorer before taking charges')
    await sleep(CURSOR_POLL_MS)
  }
}
