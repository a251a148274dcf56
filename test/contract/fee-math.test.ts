/**
 * Property test of the fee math over many amounts, with and without acquirers: calculateFees follows
 * base + principal * bps / 10000 (rounded down), and breakdownTransferAmount is its exact inverse.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { Hex } from 'viem'
import { randomBytes16, ZERO_BYTES16 } from '../../src/wire/order-reference.js'
import { setupContractFixture, type ContractFixture } from './fixture.js'

const BASE_FEE = 2_500_000n
const SAMPLES = 400

/** A small seeded generator, so a failure names amounts that reproduce. */
function amounts(seed: number): bigint[] {
  let state = seed
  const next = () => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31
    return BigInt(state)
  }
  const edges = [0n, 1n, 9_999n, 10_000n, 10_001n, 2n ** 128n - 1n]
  // Spread over magnitudes: a digit count first, then a value of at most that many digits.
  const random = Array.from({ length: SAMPLES - edges.length }, () => {
    const digits = 1n + (next() % 24n)
    return (next() * next() * next()) % 10n ** digits
  })
  return [...edges, ...random]
}

describe('fee math', () => {
  let f: ContractFixture
  let cases: { label: string; id: Hex; bps: bigint }[]
  before(async () => {
    f = await setupContractFixture()
    cases = [
      { label: 'no acquirer', id: ZERO_BYTES16, bps: 0n },
      ...f.acquirers.map((a) => ({ label: `acquirer ${a.feePercent} bps`, id: a.id, bps: BigInt(a.feePercent) })),
    ]
  })
  after(() => f.chain.stop())

  const calculate = (principal: bigint, id: Hex) => f.read<bigint>({ functionName: 'calculateFees', args: [principal, id] })
  const breakdown = (total: bigint, id: Hex) =>
    f.read<readonly [bigint, bigint]>({ functionName: 'breakdownTransferAmount', args: [total, id] })

  it('calculateFees = base + principal * bps / 10000, rounded down', async () => {
    for (const { label, id, bps } of cases) {
      const principals = amounts(7)
      const fees = await Promise.all(principals.map((p) => calculate(p, id)))
      principals.forEach((p, i) => assert.equal(fees[i], BASE_FEE + (p * bps) / 10_000n, `${label}, principal ${p}`))
    }
  })

  it('breakdownTransferAmount(principal + calculateFees(principal)) gives back principal and fee', async () => {
    for (const { label, id } of cases) {
      const principals = amounts(11)
      const fees = await Promise.all(principals.map((p) => calculate(p, id)))
      const splits = await Promise.all(principals.map((p, i) => breakdown(p + fees[i]!, id)))
      principals.forEach((p, i) => assert.deepEqual(splits[i], [p, fees[i]], `${label}, principal ${p}`))
    }
  })

  it('breakdownTransferAmount of any total at or above the base fee: the largest principal that fits', async () => {
    for (const { label, id, bps } of cases) {
      const totals = amounts(23).map((a) => a + BASE_FEE)
      const splits = await Promise.all(totals.map((t) => breakdown(t, id)))
      totals.forEach((total, i) => {
        const [principal, fee] = splits[i]!
        const cost = (p: bigint) => p + BASE_FEE + (p * bps) / 10_000n
        assert.equal(principal + fee, total, `${label}, total ${total}`)
        assert.ok(cost(principal) <= total, `${label}, total ${total}: principal ${principal} does not fit`)
        assert.ok(cost(principal + 1n) > total, `${label}, total ${total}: principal ${principal} is not the largest`)
      })
    }
  })

  it('rejects totals below the base fee and unknown acquirer ids', async () => {
    await f.expectRevert(f.stranger, { functionName: 'breakdownTransferAmount', args: [BASE_FEE - 1n, ZERO_BYTES16] }, 'AmountBelowBaseFee', [
      BASE_FEE - 1n,
      BASE_FEE,
    ])
    const unknown = randomBytes16()
    await f.expectRevert(f.stranger, { functionName: 'calculateFees', args: [1n, unknown] }, 'UnknownAcquirer', [unknown])
    await f.expectRevert(f.stranger, { functionName: 'breakdownTransferAmount', args: [BASE_FEE, unknown] }, 'UnknownAcquirer', [unknown])
  })
})
