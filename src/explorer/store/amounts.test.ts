import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { syntheticSteps } from '../../devnet/testing/index.js'
import { amountBucket, amountRangePks, amountsDb, bucketStart, countAmountRange, MAX_AMOUNT } from './amounts.js'
import { commitBatch, type IndexingStep } from './commit-batch.js'
import { decodePk, encodeHexKey } from './keys.js'
import { openStore } from './open-store.js'
import type { SettlementRecord } from './record.js'
import { rollbackAbove } from './rollback.js'

test('amount buckets grow with the amount, and each starts where bucketStart says', () => {
  const amounts = [0n, 1n, 2n, 3n, 4095n, 4096n, 4097n, 8191n, 8192n, 10n ** 9n, 10n ** 18n + 7n, MAX_AMOUNT - 1n, MAX_AMOUNT]
  for (let i = 0n; i < 20_000n; i += 7n) amounts.push(i)
  amounts.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
  for (let i = 1; i < amounts.length; i++) assert.ok(amountBucket(amounts[i - 1]!) <= amountBucket(amounts[i]!), `${amounts[i - 1]} ≤ ${amounts[i]}`)
  for (const a of amounts) {
    const b = amountBucket(a)
    assert.ok(bucketStart(b) <= a, `start of ${a}'s bucket`)
    assert.ok(bucketStart(b + 1) > a, `start of the bucket after ${a}'s`)
    if (a > 0n) assert.equal(amountBucket(bucketStart(b)), b)
  }
})

/** Amounts that exercise every level: zero, ties, tiny, 6- and 18-decimal sizes, the largest. */
function withAmounts(steps: IndexingStep[]): IndexingStep[] {
  const special = [0n, 1n, 5n, 5n, 4096n, 10n ** 6n, 10n ** 6n, 10n ** 18n, MAX_AMOUNT]
  let n = 0
  return steps.map((step) => ({ ...step, records: step.records.map((r) => ({ ...r, amount: n++ % 3 === 0 ? special[n % special.length]! : r.amount * BigInt(1 + (n % 5)) })) }))
}

test('amount range totals and listings equal a count over the settlements, after commits and after a rollback', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'explorer-amounts-'))
  const store = openStore({ path: dir, noSync: true })
  try {
    const steps = withAmounts([...syntheticSteps(3000, { tokens: 2 })])
    for (const step of steps) await commitBatch(store, step)
    let records: SettlementRecord[] = steps.flatMap((s) => s.records)
    const tokens = [...new Set(records.map((r) => r.token))]
    const bounds = [0n, 1n, 4n, 5n, 6n, 4096n, 10n ** 6n, 123_456_789n, 10n ** 9n, 2n * 10n ** 9n, 10n ** 18n, MAX_AMOUNT]
    for (const r of records.slice(0, 40)) bounds.push(r.amount, r.amount + 1n)
    const classEntries = () => amountsDb(store).getCount({ start: Buffer.from([0x04]), end: Buffer.from([0x05]) })
    const check = () => {
      assert.equal(classEntries(), records.length, 'one class entry per settlement')
      for (const token of tokens) {
        for (const min of bounds) {
          for (const max of bounds) {
            if (min > max) continue
            const expected = records.filter((r) => r.token === token && r.amount >= min && r.amount <= max)
            assert.equal(countAmountRange(store, encodeHexKey(token), min, max), expected.length, `${token} [${min}, ${max}]`)
            if (expected.length < 50) {
              const listed = [...amountRangePks(store, encodeHexKey(token), min, max)].map((pk) => decodePk(pk)).map((p) => `${p.blockNumber}:${p.logIndex}`)
              assert.deepEqual(listed.sort(), expected.map((r) => `${r.blockNumber}:${r.logIndex}`).sort())
            }
          }
        }
      }
    }
    check()
    const ancestor = steps[Math.floor(steps.length / 2)]!.head
    await rollbackAbove(store, ancestor)
    records = records.filter((r) => r.blockNumber <= ancestor.blockNumber)
    check()
  } finally {
    await store.close()
    rmSync(dir, { recursive: true, force: true })
  }
})
