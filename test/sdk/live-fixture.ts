/**
 * Pieces the SDK's live tests share: a handler that records what it is given, settlements sent in a
 * steady stream while the test breaks things, the chain's settlements since a mark, and a client watched
 * through outages.
 */
import assert from 'node:assert/strict'
import { ExplorerLiveError, type ExplorerClient, type Settlement, type SettlementHandler } from '../../src/sdk/index.js'
import { key, settlementsOnChain, waitFor, sendSettlements, type LocalChain, type SendSettlementsOptions } from '../../src/devnet/testing/index.js'

/** A handler that records what it was given. */
export function recorder(): { handler: SettlementHandler; events: Settlement[]; cursors: string[] } {
  const events: Settlement[] = []
  const cursors: string[] = []
  return { events, cursors, handler: (event, { cursor }) => (events.push(event), cursors.push(cursor)) }
}

export interface Traffic {
  /** Applies from the next batch on. */
  options: SendSettlementsOptions
  /** Resolves once `n` more batches are mined. */
  batches(n: number): Promise<unknown>
  stop(): Promise<void>
}

/** Batches of four settlements, one after the other (the relayer's nonces allow no overlap), until stopped. */
export function startTraffic(chain: LocalChain, options: SendSettlementsOptions): Traffic {
  let sent = 0
  let stopped = false
  const traffic: Traffic = {
    options,
    batches(n) {
      const target = sent + n
      return waitFor(`${n} more batches`, () => sent >= target, 60_000)
    },
    async stop() {
      stopped = true
      await loop
    },
  }
  const loop = (async () => {
    while (!stopped) {
      await sendSettlements(chain, 4, traffic.options)
      sent++
    }
  })()
  loop.catch(() => {})
  return traffic
}

/** Settlements on chain after the ones already there when `mark` was taken. */
export const since = (all: Settlement[], mark: Settlement[]) => all.filter((e) => !mark.some((m) => key(m) === key(e)))

/**
 * `client` with two handlers: every settlement, and one acquirer's, which gets nothing until the traffic
 * switches to acquirer payments during an outage, so that only the head cursor it started from can resume
 * it. `verify` waits for every settlement sent since, and checks that each handler got exactly its matching
 * ones, once each, in chain order, and that `errors` (the client's `onError`) holds nothing but failed
 * reconnect attempts.
 */
export async function watchOutages(chain: LocalChain, client: ExplorerClient, errors: Error[]) {
  const all = recorder()
  const acquired = recorder()
  const acquirerId = chain.deployment.acquirers[0]!.id
  await client.connect()
  const subs = [client.onSettlement(all.handler), client.onSettlement({ acquirerId }, acquired.handler)]
  await Promise.all(subs.map((s) => s.ready))
  const mark = await settlementsOnChain(chain)
  const verify = async () => {
    const expected = since(await settlementsOnChain(chain), mark)
    const expectedAcquired = expected.filter((e) => e.acquirerId === acquirerId)
    assert.ok(expectedAcquired.length > 0)
    await waitFor('every settlement after the outages', () => all.events.length >= expected.length && acquired.events.length >= expectedAcquired.length, 60_000)
    // Nothing straggling behind.
    await new Promise((resolve) => setTimeout(resolve, 300))
    assert.deepEqual(all.events.map(key), expected.map(key))
    assert.deepEqual(all.events, expected)
    assert.deepEqual(acquired.events, expectedAcquired)
    assert.ok(client.connected)
    assert.deepEqual(errors.filter((e) => !(e instanceof ExplorerLiveError && e.code === 'CONNECT_FAILED')), [])
    await client.disconnect()
  }
  return { client, all, verify }
}
