import assert from 'node:assert/strict'
import { test } from 'node:test'
import { parseTransaction, type Hex, type PublicClient } from 'viem'
import { createTxSender } from './create-tx-sender.js'

const KEY = `0x${'11'.repeat(32)}` as Hex

/**
 * A node that takes `handOverMs` to accept each transaction and records the nonces in the order they
 * arrive, and how many were being handed over at once (an automining node may leave a transaction that
 * arrives before its predecessor was accepted in its pool).
 */
function slowNode(handOverMs: number) {
  const arrived: number[] = []
  let inFlight = 0
  const seen = { mostAtOnce: 0 }
  const node = {
    getChainId: async () => 31337,
    getTransactionCount: async () => 0,
    getBlock: async () => ({ baseFeePerGas: 1n }),
    estimateMaxPriorityFeePerGas: async () => 1n,
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
  // 14 hand-overs of 500 ms: the last transaction waits 6.5 s, past the 5 s after which a stalled queue gives up.
  const { arrived, seen, publicClient } = slowNode(500)
  const sender = await createTxSender({ publicClient, privateKey: KEY, chainId: 31337 })
  await Promise.all(Array.from({ length: 14 }, () => sender.send({ to: `0x${'22'.repeat(20)}`, data: '0x', gas: 21_000n })))
  assert.deepEqual(arrived, Array.from({ length: 14 }, (_, i) => i))
  assert.equal(seen.mostAtOnce, 1, 'each transaction is handed over once its predecessor was accepted')
})

test('a nonce reserved and never sent holds the next transaction only until hand-overs have stopped for 5 s', async () => {
  const { arrived, publicClient } = slowNode(0)
  const sender = await createTxSender({ publicClient, privateKey: KEY, chainId: 31337 })
  const abandoned = sender.reserveNonce()
  const started = Date.now()
  // The sender's wait does not hold a process open by itself (a process with nothing else to do may exit).
  const holdOpen = setInterval(() => {}, 1_000)
  await sender.send({ to: `0x${'22'.repeat(20)}`, data: '0x', gas: 21_000n }).finally(() => clearInterval(holdOpen))
  assert.deepEqual(arrived, [abandoned + 1])
  assert.ok(Date.now() - started >= 5_000, `went after ${Date.now() - started} ms`)
})
