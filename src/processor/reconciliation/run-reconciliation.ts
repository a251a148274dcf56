/**
 * The active reconciler's work, run while this process holds the reconciler lock, all on the lock's own
 * connection and one job at a time (so no two of them ever interleave transactions, and losing the
 * connection — and with it the lock — stops them all):
 * - the explorer feed: batches of settlements and removals applied in one transaction with the cursor
 *   after them (exactly once across restarts); a failed batch reopens the feed from the stored cursor;
 * - the head poll: removals the feed reported, checked on the chain, and settlements taken away watched
 *   for their return (`verify-removals.ts`); confirmations and settling (`confirm-payables.ts`);
 * - the expiry sweep (`expire-payables.ts`), by the chain time the applied feed has passed (`feed-time.ts`).
 * Only the chain takes a payment away: a REMOVED from the feed is recorded as a report (`reportPaymentRemoved`).
 */
import { setTimeout as sleep } from 'node:timers/promises'
import type pg from 'pg'
import type { PublicClient } from 'viem'
import type { CheckoutOptions } from '../../config/index.js'
import { runTransaction } from '../db/index.js'
import { lockReconciliationCursor, readReconciliationCursor, reportPaymentRemoved, saveReconciliationCursor } from '../db/index.js'
import { ExplorerClient } from '../../sdk/index.js'
import type { Logger } from '../../platform/observability/index.js'
import { applySettlement, type ReconcileContext } from './apply-feed-item.js'
import { settlementAsOnChain } from './chain-settlement.js'
import { confirmPayables } from './confirm-payables.js'
import { checkPresence } from './settlement-presence.js'
import { restoreReturned, verifyRemovals } from './verify-removals.js'
import { expireOverdue } from './expire-payables.js'
import { reconcilableKinds } from './payable-kinds.js'
import { feedTime } from './feed-time.js'
import { openSettlementFeed, type FeedItem, type SettlementFeed } from './settlement-feed.js'

export type ReconcilerSettings = Pick<
  CheckoutOptions,
  'contract' | 'explorerUrl' | 'widgetBaseUrl' | 'confirmationBlocks' | 'removedAfterBlocks' | 'restoreWatchBlocks' | 'pollIntervalMs' | 'expirySweepMs'
>

/** What the active reconciler shows to `/health`. */
export interface ReconcilerState {
  head: number | undefined
  feed: SettlementFeed | undefined
}

export interface RunReconciliationParams {
  client: pg.PoolClient
  publicClient: PublicClient
  settings: ReconcilerSettings
  state: ReconcilerState
  log: Logger
  signal: AbortSignal
}

/** Items applied per transaction. */
const BATCH = 200
/** Items queued from the feed before it is dropped and reopened from the stored cursor. */
const MAX_QUEUED = 10_000
const MAX_RETRY_MS = 10_000
/** The expiry sweep's questions to the explorer (its indexed head, what follows the cursor). */
const EXPLORER_TIMEOUT_MS = 5_000

type Serial = <T>(job: () => Promise<T>) => Promise<T>

export async function runReconciliation(params: RunReconciliationParams): Promise<void> {
  const { settings, state } = params
  const { publicClient, log } = params
  const head = () => state.head
  const ctx: ReconcileContext = {
    confirmationBlocks: settings.confirmationBlocks,
    restoreWatchBlocks: settings.restoreWatchBlocks,
    widgetBaseUrl: settings.widgetBaseUrl,
    head,
    presence: checkPresence({ publicClient, contract: settings.contract, removedAfterBlocks: settings.removedAfterBlocks, head, log }),
    async onChain(event) {
      const onChain = await settlementAsOnChain(publicClient, settings.contract, event)
      if (!onChain) log.warn('the explorer reported a payment the chain does not hold; ignored', { txHash: event.txHash, orderReference: event.orderReference })
      return onChain
    },
  }
  let tail: Promise<unknown> = Promise.resolve()
  const serial: Serial = (job) => {
    const run = tail.then(job)
    tail = run.catch(() => {})
    return run
  }
  await Promise.all([followFeed(params, ctx, serial), pollHead(params, ctx, serial), sweepExpired(params, serial)])
}

async function followFeed({ client, settings, state, log, signal }: RunReconciliationParams, ctx: ReconcileContext, serial: Serial): Promise<void> {
  for (let failures = 0; !signal.aborted; ) {
    let feed: SettlementFeed | undefined
    try {
      const since = await serial(() => readReconciliationCursor(client))
      feed = openSettlementFeed({ explorerUrl: settings.explorerUrl, since, maxQueued: MAX_QUEUED, log })
      state.feed = feed
      const start = await feed.open(signal)
      if (since === undefined && start !== undefined) await serial(() => saveReconciliationCursor(client, start))
      for (;;) {
        const items = await feed.take(BATCH, signal)
        if (items.length === 0 && (feed.overflowed || signal.aborted)) break
        if (items.length > 0) await serial(() => applyItems(client, items, ctx))
        failures = 0
      }
    } catch (error) {
      if (signal.aborted) break
      log.error('reconciliation stopped on an error; resuming from the stored cursor', { error })
      await sleep(Math.min(250 * 2 ** failures++, MAX_RETRY_MS), undefined, { signal }).catch(() => {})
    } finally {
      state.feed = undefined
      await feed?.close()
    }
  }
}

async function applyItems(client: pg.PoolClient, items: FeedItem[], ctx: ReconcileContext): Promise<void> {
  await runTransaction(client, async (tx) => {
    await lockReconciliationCursor(tx)
    let cursor: string | undefined
    for (const item of items) {
      if (item.kind === 'settlement') await applySettlement(tx, item.event, ctx)
      else await reportPaymentRemoved(tx, item.event.txHash, item.event.logIndex)
      cursor = item.cursor ?? cursor
    }
    if (cursor !== undefined) await saveReconciliationCursor(tx, cursor)
  })
}

async function pollHead({ client, publicClient, settings, state, log, signal }: RunReconciliationParams, ctx: ReconcileContext, serial: Serial): Promise<void> {
  let failing = false
  while (!signal.aborted) {
    try {
      state.head = Number(await publicClient.getBlockNumber({ cacheTime: 0 }))
      await serial(() => verifyRemovals(client, ctx, log))
      await serial(() => restoreReturned(client, ctx, log))
      await serial(() => confirmPayables(client, ctx))
      if (failing) log.info('confirmations: the node answers again')
      failing = false
    } catch (error) {
      if (!failing && !signal.aborted) log.warn('confirmations: polling failed; retrying', { error })
      failing = true
    }
    await sleep(settings.pollIntervalMs, undefined, { signal }).catch(() => {})
  }
}

async function sweepExpired({ client, publicClient, settings, state, log, signal }: RunReconciliationParams, serial: Serial): Promise<void> {
  const explorer = new ExplorerClient({ baseUrl: settings.explorerUrl, timeout: EXPLORER_TIMEOUT_MS })
  let failing = false
  /** The feed time last logged while something was overdue (null: unknown; undefined: none logged): logged again only when it moves. */
  let waitingAt: number | null | undefined
  while (!signal.aborted) {
    try {
      let overdue = false
      for (const { payable } of reconcilableKinds) overdue ||= await serial(() => payable.queries.hasOverdue(client))
      const passedMs = overdue ? await feedTime({ explorer, publicClient, cursor: await serial(() => readReconciliationCursor(client)) }) : undefined
      // Before the first head poll, every payable whose paying settlement was ever taken away waits.
      const watchedSince = state.head === undefined ? 0 : state.head - settings.restoreWatchBlocks
      for (const kind of reconcilableKinds) {
        const expired = passedMs === undefined ? 0 : await serial(() => expireOverdue(kind, client, settings.widgetBaseUrl, passedMs, watchedSince))
        if (expired > 0) log.info(`${kind.payable.name}s expired`, { count: expired })
      }
      const feedAt = passedMs ?? null
      if (overdue && feedAt !== waitingAt) log.debug('expiry sweep: overdue on the wall clock, the feed at', { feedTime: feedAt === null ? null : new Date(feedAt).toISOString() })
      waitingAt = overdue ? feedAt : undefined
      if (failing) log.info('expiry sweep: running again')
      failing = false
    } catch (error) {
      if (!failing && !signal.aborted) log.warn('expiry sweep failed; no charge expires until it runs again', { error })
      failing = true
    }
    await sleep(settings.expirySweepMs, undefined, { signal }).catch(() => {})
  }
}
