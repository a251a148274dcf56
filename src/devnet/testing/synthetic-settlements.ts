/**
 * Realistic synthetic settlements for store-level tests and benchmarks: many payers, fewer recipients,
 * a few tokens, acquirers on a share of them, optionally payments between payers (self-payments
 * included), increasing blocks and timestamps. Deterministic per seed.
 */
import type { IndexingStep } from '../../explorer/store/index.js'
import type { SettlementRecord } from '../../explorer/store/index.js'
import type { Hex } from '../../wire/index.js'

export interface SyntheticOptions {
  seed?: number
  tokens?: number
  payers?: number
  recipients?: number
  acquirers?: number
  /** Share of settlements with an acquirer, 0..1. */
  acquirerShare?: number
  /** Share of settlements paid to one of the payers (a self-payment when it is the payer itself), 0..1; default 0. */
  paidToPayerShare?: number
  maxPerBlock?: number
  startBlock?: number
  startTimestamp?: number
}

function random(seed: number) {
  let state = seed >>> 0 || 1
  return () => {
    state ^= state << 13
    state ^= state >>> 17
    state ^= state << 5
    return (state >>> 0) / 2 ** 32
  }
}

const hexOf = (prefix: number, i: number, bytes: number) =>
  `0x${prefix.toString(16).padStart(2, '0')}${i.toString(16).padStart(bytes * 2 - 2, '0')}` as Hex

export const syntheticToken = (i: number) => hexOf(0x70, i, 20)
export const syntheticPayer = (i: number) => hexOf(0x9a, i, 20)
export const syntheticRecipient = (i: number) => hexOf(0x4e, i, 20)
export const syntheticAcquirer = (i: number) => hexOf(0xac, i + 1, 16)

/** Yields indexing steps (one block each) until `count` settlements were produced. */
export function* syntheticSteps(count: number, options: SyntheticOptions = {}): Generator<IndexingStep> {
  const {
    seed = 1,
    tokens = 3,
    payers = 5000,
    recipients = 2000,
    acquirers = 20,
    acquirerShare = 0.3,
    paidToPayerShare = 0,
    maxPerBlock = 8,
    startBlock = 100,
    startTimestamp = 1_700_000_000,
  } = options
  const rnd = random(seed)
  const pick = (n: number) => Math.floor(rnd() * n)
  let produced = 0
  let blockNumber = startBlock
  let timestamp = startTimestamp
  while (produced < count) {
    blockNumber += 1 + pick(3)
    timestamp += 1 + pick(12)
    const blockHash = hexOf(0xb1, blockNumber, 32)
    const inBlock = Math.min(count - produced, 1 + pick(maxPerBlock))
    const records: SettlementRecord[] = []
    for (let i = 0; i < inBlock; i++) {
      produced++
      const token = syntheticToken(pick(tokens))
      const acquirer = rnd() < acquirerShare ? syntheticAcquirer(pick(acquirers)).slice(2) : '0'.repeat(32)
      const logIndex = i * 3 + pick(2)
      const payer = syntheticPayer(pick(payers))
      // Without the option no extra random draw: the same seed yields the same settlements as before.
      const recipient = paidToPayerShare > 0 && rnd() < paidToPayerShare ? syntheticPayer(pick(payers)) : syntheticRecipient(pick(recipients))
      records.push({
        blockNumber,
        logIndex,
        blockHash,
        timestamp,
        txHash: hexOf(0x7e, produced, 32),
        token,
        payer,
        recipient,
        amount: BigInt(1 + pick(1_000_000_000)),
        fee: 2_500_000n + BigInt(pick(100_000)),
        reference: `0x${produced.toString(16).padStart(32, '0')}${acquirer}` as Hex,
        domainSeparator: `0x${token.slice(2).padEnd(64, 'd')}` as Hex,
      })
    }
    yield { records, blocks: [{ blockNumber, blockHash, timestamp }], head: { blockNumber, blockHash } }
  }
}
