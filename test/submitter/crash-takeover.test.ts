/**
 * kill -9 of the active submitter at random moments while 200 payments go through, with a standby
 * always waiting: every payment is mined exactly once, the relayer sends no extra transaction, and
 * each payment's announced statuses run ENQUEUING → PENDING → BROADCASTING → SUCCESS in order.
 */
import assert from 'node:assert/strict'
import type { ChildProcess } from 'node:child_process'
import { after, before, test } from 'node:test'
import { privateKeyToAccount } from 'viem/accounts'
import { createChainClient } from '../../src/chain/create-chain-client.js'
import type { Database } from '../../src/processor/db/open-database.js'
import { channels, type StatusNotice } from '../../src/processor/db/submissions.js'
import type { LocalChain } from '../../src/devnet/testing/index.js'
import { signTransferRequests, enqueue, settlementRefsOnChain, spawnSubmitter, startChainAndDatabase, waitForFinal } from '../../src/devnet/testing/index.js'

let chain: LocalChain
let db: Database

before(async () => {
  ;({ chain, db } = await startChainAndDatabase())
})
after(async () => {
  await db?.close()
  await chain?.stop()
})

const rank = { ENQUEUING: 0, PENDING: 1, BROADCASTING: 2, SUCCESS: 3, FAILURE: 3 } as const

test('kill -9 of the active submitter during 200 payments: each mined exactly once, statuses complete', { timeout: 180_000 }, async (t) => {
  const publicClient = createChainClient({ rpcUrl: chain.rpcUrl })
  const relayer = privateKeyToAccount(chain.deployment.relayerKey!).address
  const nonceBefore = await publicClient.getTransactionCount({ address: relayer })
  const signed = await signTransferRequests(chain, 200)
  const seen = new Map<string, StatusNotice[]>()
  const listener = await db.listen([channels.status], (_, payload) => {
    const notice = JSON.parse(payload) as StatusNotice
    seen.set(notice.payloadId, [...(seen.get(notice.payloadId) ?? []), notice])
  })

  const running = new Set<ChildProcess>()
  let active: ChildProcess | undefined
  let takeovers = 0
  const spawnOne = () => {
    const child = spawnSubmitter(chain, db, () => {
      active = child
      takeovers++
    }, { SUBMITTER_BATCH: '16' })
    running.add(child)
    child.once('exit', () => running.delete(child))
  }
  spawnOne()
  spawnOne()
  await enqueue(db, signed)

  let kills = 0
  const ids = signed.map((s) => s.request.payloadId)
  const killer = (async () => {
    while (kills < 8) {
      // The first kill comes early: on a quiet machine 200 payments can all be mined within a second.
      await new Promise((resolve) => setTimeout(resolve, kills === 0 ? 50 + Math.random() * 200 : 300 + Math.random() * 900))
      const { rows } = await db.pool.query(`SELECT count(*)::int AS open FROM submissions WHERE status NOT IN ('SUCCESS', 'FAILURE')`)
      if (rows[0].open === 0) return
      if (!active || active.exitCode !== null) continue
      active.kill('SIGKILL')
      active = undefined
      kills++
      spawnOne()
    }
  })()

  try {
    const rows = await waitForFinal(db, ids, 150_000)
    await killer
    assert.ok(kills >= 1, 'at least one active submitter was killed while payments were open')
    assert.ok(takeovers > kills, 'a standby took over after each kill')
    t.diagnostic(`${kills} active submitters killed, ${takeovers} takeovers`)
    assert.deepEqual(rows.filter((r) => r.status !== 'SUCCESS').map((r) => [r.payloadId, r.status, r.failureReason]), [])

    const settled = await settlementRefsOnChain(chain)
    const byRef = new Map<string, string[]>()
    for (const s of settled) byRef.set(s.orderReference, [...(byRef.get(s.orderReference) ?? []), s.txHash])
    for (const [i, s] of signed.entries()) {
      assert.deepEqual(byRef.get(s.orderReference), [rows[i]!.txHash], `payment ${i} mined exactly once, in the recorded transaction`)
    }
    assert.equal(await publicClient.getTransactionCount({ address: relayer }), nonceBefore + 200, 'no transaction beyond one per payment')

    for (const id of ids) {
      const statuses = (seen.get(id) ?? []).map((n) => n.status)
      assert.deepEqual([...new Set(statuses)], ['ENQUEUING', 'PENDING', 'BROADCASTING', 'SUCCESS'], `statuses of ${id}: ${statuses.join(' ')}`)
      for (let k = 1; k < statuses.length; k++) assert.ok(rank[statuses[k]!] >= rank[statuses[k - 1]!], `statuses of ${id} never go back`)
    }
  } finally {
    for (const child of running) child.kill('SIGKILL')
    await listener.close()
  }
})
