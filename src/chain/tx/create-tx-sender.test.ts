import assert from 'node:assert/strict'
import { test } from 'node:test'
import { parseTransaction, type Hex, type PublicClient } from 'viem'
import { createTxSender } from './create-tx-sender.js'

const KEY = `0x${'11'.repeat(32)}` as Hex
/** The sender's stall limit here (5 s in service), short so that waiting past it costs the suite little. */
const STALLED_MS = 400
const TO = `0x${'22'.repeat(20)}` as Hex

/**
 * A node that takes `handOverMs` to accept each transaction and records the nonces in the order they
 * arrive, and how many were being handed over at once (an automining node may leave a transaction that
 * arrives before its predecessor was accepted in its pool).
 */
function slowNode(handOverMs: number, estimateMs = 0) {
  const arrived: number[] = []
  let inFlight = 0
  const seen = { mostAtOnce: 0 }
  const node = {
    getChainId: async () => 31337,
    getTransactionCount: async () => 0,
    getBlock: async () => ({ baseFeePerGas: 1n }),
    estimateMaxPriorityFeePerGas: async () => 1n,
    estimateGas: async () => {
      await new Promise((resolve) => setTimeout(resolve, estimateMs))
      return 21_000n
    },
    sendRawTransaction: async ({ serializedTransaction }: { serializedTransaction: Hex }) => {
      arrived.push(parseTransaction(serializedTransaction).nonce!)
      seen.mostAtOnce = Math.max(seen.mostAtOnce, ++inFlight)
      await new Promise((resolve) => setTimeout(resolve, handOverMs))
      inFlight--
      return `0x${'00'.repeat(32)}` as Hex
    },
  }
  return { arrived, seen, publicClient: node as unknown as PublicClient }
}

test('transactions reach the node in nonce order even when handing them all over takes longer than the stall limit', async () => {
  // 14 hand-overs of 50 ms: the last transaction waits 650 ms, past the stall limit.
  const { arrived, seen, publicClient } = slowNode(50)
  const sender = await createTxSender({ publicClient, privateKey: KEY, chainId: 31337, stalledMs: STALLED_MS })
  await Promise.all(Array.from({ length: 14 }, () => sender.send({ to: TO, data: '0x', gas: 21_000n })))
  assert.deepEqual(arrived, Array.from({ length: 14 }, (_, i) => i))
  assert.equal(seen.mostAtOnce, 1, 'each transaction is handed over once its predecessor was accepted')
})

test('a predecessor still being prepared past the stall limit (its gas estimate) reaches the node first', async () => {
  const { arrived, publicClient } = slowNode(0, 3 * STALLED_MS)
  const sender = await createTxSender({ publicClient, privateKey: KEY, chainId: 31337, stalledMs: STALLED_MS })
  await Promise.all([sender.send({ to: TO, data: '0x' }), sender.send({ to: TO, data: '0x', gas: 21_000n })])
  assert.deepEqual(arrived, [0, 1])
})

test('a nonce reserved and never sent holds the next transaction only until hand-overs have stopped for the stall limit', async () => {
  const { arrived, publicClient } = slowNode(0)
  const sender = await createTxSender({ publicClient, privateKey: KEY, chainId: 31337, stalledMs: STALLED_MS })
  const abandoned = sender.reserveNonce()
  const started = Date.now()
  // The sender's wait does not hold a process open by itself (a process with nothing else to do may exit).
  const holdOpen = setInterval(() => {}, 1_000)
  await sender.send({ to: TO, data: '0x', gas: 21_000n }).finally(() => clearInterval(holdOpen))
  assert.deepEqual(arrived, [abandoned + 1])
  assert.ok(Date.now() - started >= STALLED_MS, `went after ${Date.now() - started} ms`)
})
