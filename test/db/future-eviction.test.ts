/**
 * Future submissions evicted under concurrent enqueues (issue 38, item 2), on a real PostgreSQL, with the
 * gateway's own sequence: enqueue, then, when the future budget was full, evict the oldest waiting ones.
 * The sybil flood (test/gateway/sybil-flood.test.ts) once answered one of its 16,000 permits
 * INTERNAL_ERROR: two evictions at once locked overlapping rows in different orders, PostgreSQL broke the
 * deadlock (40P01) by failing one, and the gateway answered a permit it had already queued with an
 * internal error. Here the same race, many times over, in seconds: many fresh owners (each permit is
 * future: nonce 0, nothing to pay with) through the gateway's pool of 10 connections, a small budget so
 * nearly every enqueue evicts; and the deadlock itself, step by step: a long eviction locking in heap order
 * and a short one locking oldest first, while the submitter holds a row both want.
 */
import assert from 'node:assert/strict'
import { randomBytes, randomUUID } from 'node:crypto'
import { after, before, test } from 'node:test'
import type { Hex } from 'viem'
import { openDatabase, type Database } from '../../src/processor/db/open-database.js'
import { enqueueSubmission, type QueueLimits } from '../../src/processor/db/submissions.js'
import { evictOldestFuture } from '../../src/processor/db/submitter-queue.js'
import type { PaymentIntent } from '../../src/wire/payment-request.js'
import { createLogger } from '../../src/platform/observability/logger.js'
import { testDatabase } from '../../src/devnet/test-database/index.js'

const OWNERS = 4_000
const CONCURRENCY = 100
const BUDGET = 16

let db: Database
let second: Database
before(async () => {
  ;[db, second] = await Promise.all([openDatabase(await testDatabase(), createLogger('silent')), openDatabase(await testDatabase(), createLogger('silent'))])
})
after(() => Promise.all([db.close(), second.close()]))

const hex = (bytes: number) => `0x${randomBytes(bytes).toString('hex')}` as Hex
const signature = () => ({ v: 27, r: hex(32), s: hex(32) })

/** A payment permit of a fresh owner; the queue checks no signature, the gateway did. */
function futureIntent(token: Hex): PaymentIntent {
  const owner = hex(20)
  return {
    kind: 'PAYMENT', payloadId: randomUUID(), token, owner,
    permit: { owner, spender: token, value: 1_000_000n, nonce: 0n, deadline: 9_999_999_999n },
    bindingSig: signature(), permitSig: signature(), beneficiary: hex(20), ref: hex(32), feeValue: 0n,
  } as PaymentIntent
}

test('concurrent enqueues that each evict the oldest future submissions all succeed, and the budget ends exact', async () => {
  const token = hex(20)
  const limits: QueueLimits = { chainNonce: 0n, balance: 0n, maxPerOwner: 16, maxTotal: 10_000, maxFuturePerOwner: 4, maxFuture: BUDGET }
  const failures: string[] = []
  let evictions = 0
  let next = 0
  const worker = async () => {
    while (next++ < OWNERS) {
      const intent = futureIntent(token)
      try {
        const { outcome, future, queued } = await enqueueSubmission(db.pool, { intent, callerAddress: intent.owner, digest: hex(32), request: {} }, limits)
        assert.deepEqual([outcome, future], ['enqueued', true])
        if (queued.futureTotal >= BUDGET) {
          const evicted = await evictOldestFuture(db, BUDGET)
          evictions += evicted.length
        }
      } catch (error) {
        failures.push(`${(error as { code?: string }).code ?? ''} ${(error as Error).message}`)
      }
    }
  }
  await Promise.all(Array.from({ length: CONCURRENCY }, worker))
  assert.deepEqual(failures, [], `${failures.length} of ${OWNERS} enqueues failed`)

  // Enqueues that saw room just before the budget filled may pass it briefly; the next eviction makes it exact.
  const last = await evictOldestFuture(db, BUDGET)
  evictions += last.length
  const { rows } = await db.pool.query<{ waiting: number; evicted: number }>(
    `SELECT count(*) FILTER (WHERE status = 'ENQUEUING')::int AS waiting, count(*) FILTER (WHERE failure_category = 'EVICTED')::int AS evicted FROM submissions`,
  )
  assert.deepEqual(rows[0], { waiting: BUDGET, evicted: OWNERS - BUDGET }, 'exactly the budget left: none evicted twice over, none evicted too many')
  assert.equal(evictions, OWNERS - BUDGET, 'each eviction answered once')
})

/** Resolves once `count` other backends wait for a lock, or `settled` says there is nothing left to wait for. */
async function lockWaiters(on: Database, count: number, settled: () => boolean): Promise<void> {
  for (let i = 0; i < 500 && !settled(); i++) {
    const { rows } = await on.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`)
    if (rows[0]!.n >= count) return
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  assert.ok(settled(), `${count} lock waiters within 5 s`)
}

test('two evictions at once with a row locked by the submitter neither deadlock nor wait for it', async () => {
  // Rows whose heap order (B, C, A, …) is not their age order (A, B, C, …), after 3,000 final ones: the
  // planner then updates a long list of ids by a hash join, in heap order, and a short one by a nested
  // loop, oldest first.
  await second.pool.query(
    `INSERT INTO submissions (payload_id, kind, caller_address, digest, token, owner, permit_nonce, deadline, request, status, created_at)
     SELECT 'final-' || i, 'PAYMENT', '0x', 'digest-final-' || i, '0x', '0x', 0, 1, '{}', 'SUCCESS', '2025-01-01' FROM generate_series(1, 3000) i`,
  )
  const ages = ['b', 'c', 'a', ...Array.from({ length: 100 }, (_, i) => `d${String(i).padStart(3, '0')}`)]
  await second.pool.query(
    `INSERT INTO submissions (payload_id, kind, caller_address, digest, token, owner, permit_nonce, permit_value, deadline, request, status, future, created_at)
     SELECT id, 'PAYMENT', '0x', 'digest-' || id, '0x', 'owner-' || id, 0, 1, 1, '{}', 'ENQUEUING', true, '2026-01-01'::timestamptz + make_interval(secs => age)
     FROM unnest($1::text[], $2::int[]) WITH ORDINALITY AS t(id, age, n) ORDER BY n`,
    [ages, ages.map((id) => [...ages].sort().indexOf(id))],
  )
  await second.pool.query('ANALYZE submissions')
  // The submitter holds C (taking it to sign).
  const submitter = await second.pool.connect()
  try {
    await submitter.query('BEGIN')
    await submitter.query(`SELECT 1 FROM submissions WHERE payload_id = 'c' FOR UPDATE`)
    const all = track(evictOldestFuture(second, 0))
    await lockWaiters(second, 1, () => all.settled)
    const oldestTwo = track(evictOldestFuture(second, ages.length - 2))
    await lockWaiters(second, 2, () => oldestTwo.settled)
    await submitter.query('ROLLBACK')
    const outcomes = await Promise.allSettled([all.promise, oldestTwo.promise])
    assert.deepEqual(outcomes.map((o) => (o.status === 'rejected' ? `${(o.reason as { code?: string }).code} ${(o.reason as Error).message}` : 'ok')), ['ok', 'ok'])
  } finally {
    submitter.release()
  }
  const { rows } = await second.pool.query<{ id: string }>(`SELECT payload_id AS id FROM submissions WHERE status = 'ENQUEUING'`)
  assert.deepEqual(rows.map((r) => r.id), ['c'], 'every other one evicted; the one the submitter held left alone')
})

function track<T>(promise: Promise<T>): { promise: Promise<T>; settled: boolean } {
  const tracked = { promise, settled: false }
  promise.then(() => (tracked.settled = true), () => (tracked.settled = true))
  return tracked
}
