import assert from 'node:assert/strict'
import { test } from 'node:test'
import type { Readiness } from './probe-ready.js'
import { ReplicaPool, type Replica } from './replica-pool.js'
import { isFailover, withFailover } from './with-failover.js'
import { ExplorerApiError, ExplorerNetworkError, ExplorerTimeoutError } from '../errors.js'

const replicas: Replica[] = ['a', 'b', 'c'].map((name) => ({ baseUrl: `http://${name}`, wsUrl: `ws://${name}/stream` }))
const [a, b, c] = replicas as [Replica, Replica, Replica]

/** A pool whose probes answer from `states`, counting the probes. */
function poolWith(states: Record<string, Readiness>, list = replicas) {
  const probes: string[] = []
  const pool = new ReplicaPool(list, async (replica) => {
    probes.push(replica.baseUrl)
    return states[replica.baseUrl] ?? 'down'
  })
  return { pool, probes }
}

test('a single replica is used without probing', async () => {
  const { pool, probes } = poolWith({}, [a])
  assert.equal(await pool.pick(), a)
  pool.failed(a)
  assert.equal(await pool.pick(), a)
  assert.equal(await pool.pick(new Set([a])), undefined)
  assert.deepEqual(probes, [])
})

test('the first pick prefers a caught-up replica, in list order, and sticks to it', async () => {
  const { pool, probes } = poolWith({ 'http://a': 'lagging', 'http://b': 'ready', 'http://c': 'ready' })
  const [first, second] = await Promise.all([pool.pick(), pool.pick()])
  assert.equal(first, b)
  assert.equal(second, b)
  assert.equal(probes.length, 3, 'concurrent picks share one probe round')
  assert.equal(await pool.pick(), b)
  assert.equal(probes.length, 3)
})

test('after a failure: another caught-up replica, the next in the list after the failed one first', async () => {
  const states: Record<string, Readiness> = { 'http://a': 'ready', 'http://b': 'ready', 'http://c': 'ready' }
  const { pool } = poolWith(states)
  assert.equal(await pool.pick(), a)
  pool.failed(a)
  assert.equal(await pool.pick(), b)
  pool.failed(b)
  assert.equal(await pool.pick(), c)
  pool.failed(c)
  assert.equal(await pool.pick(), a)
  // The failed one is taken again only when nothing else is caught up; a lagging one comes after it.
  states['http://b'] = 'lagging'
  states['http://c'] = 'down'
  pool.failed(a)
  assert.equal(await pool.pick(), a)
  states['http://a'] = 'down'
  pool.failed(a)
  assert.equal(await pool.pick(), b)
})

test('exclusions: the active replica is skipped when excluded, undefined when all are', async () => {
  const { pool } = poolWith({ 'http://a': 'ready', 'http://b': 'ready', 'http://c': 'down' })
  assert.equal(await pool.pick(), a)
  assert.equal(await pool.pick(new Set([a])), b)
  assert.equal(pool.active, b)
  assert.equal(await pool.pick(new Set([a, b])), c)
  assert.equal(await pool.pick(new Set(replicas)), undefined)
})

test('failover on network errors, timeouts and 5xx; never on 4xx or an abort', async () => {
  const problem = (status: number) => new ExplorerApiError({ type: 'about:blank', title: 't', status, detail: 'd' }, 'u')
  assert.equal(isFailover(new ExplorerNetworkError('refused', 'u')), true)
  assert.equal(isFailover(new ExplorerTimeoutError(5, 'u')), true)
  assert.equal(isFailover(problem(502)), true)
  assert.equal(isFailover(problem(503)), true)
  assert.equal(isFailover(problem(400)), false)
  assert.equal(isFailover(problem(404)), false)
  assert.equal(isFailover(new DOMException('aborted', 'AbortError')), false)

  const { pool } = poolWith({ 'http://a': 'ready', 'http://b': 'ready', 'http://c': 'ready' })
  const calls: string[] = []
  const answer = await withFailover(pool, async (replica) => {
    calls.push(replica.baseUrl)
    if (replica !== c) throw replica === a ? problem(503) : new ExplorerNetworkError('reset', replica.baseUrl)
    return 'ok'
  })
  assert.equal(answer, 'ok')
  assert.deepEqual(calls, ['http://a', 'http://b', 'http://c'])
  assert.equal(pool.active, c)

  calls.length = 0
  await assert.rejects(
    withFailover(pool, async (replica) => {
      calls.push(replica.baseUrl)
      throw problem(400)
    }),
    (error: unknown) => error instanceof ExplorerApiError && error.status === 400,
  )
  assert.deepEqual(calls, ['http://c'])

  calls.length = 0
  await assert.rejects(
    withFailover(pool, async (replica) => {
      calls.push(replica.baseUrl)
      throw new ExplorerTimeoutError(5, replica.baseUrl)
    }),
    (error: unknown) => error instanceof ExplorerTimeoutError && error.url === calls.at(-1),
  )
  assert.equal(calls.length, 3, 'each replica tried once, the last failure thrown')
})
