/**
 * Chain reorganisations on anvil for the soak, with interval mining paused while the blocks are read
 * and replaced (a block mined in between would be taken back unread). Two kinds, taken in turn:
 * - `remined`: `anvil_reorg` replaces the newest `depth` blocks by a branch that carries the same
 *   transactions, each pushed one block later where the branch allows it (their order kept, so every
 *   sender's nonces stay in order): the settlements move to other positions.
 * - `mempool`: the blocks are replaced by empty ones and their transactions sent again, as a node puts a
 *   dropped branch's transactions back in its pool: they are mined in the next block.
 * Either way no transaction is lost for good: dropping a relayer's mined transaction would leave a nonce
 * gap that stalls every later payment, which is the submitter's problem and not what the soak measures.
 */
import type { Hex } from 'viem'
import { chainRpc as rpc } from '../../src/devnet/testing/index.js'

export type ReorgKind = 'remined' | 'mempool'

export interface ReorgResult {
  kind: ReorgKind
  depth: number
  /** Transactions in the blocks taken back. */
  transactions: number
  /** Block number of the last block kept. */
  forkBlock: number
}

export async function reorg(rpcUrl: string, kind: ReorgKind, depth: number, blockTimeSeconds: number): Promise<ReorgResult> {
  await rpc(rpcUrl, 'evm_setIntervalMining', [0])
  try {
    const head = Number(await rpc<Hex>(rpcUrl, 'eth_blockNumber'))
    const forkBlock = head - depth
    const taken: { raw: Hex; offset: number }[] = []
    for (let offset = 0; offset < depth; offset++) {
      const block = await rpc<{ transactions: Hex[] }>(rpcUrl, 'eth_getBlockByNumber', [`0x${(forkBlock + 1 + offset).toString(16)}`, false])
      for (const hash of block.transactions) taken.push({ raw: await rpc<Hex>(rpcUrl, 'eth_getRawTransactionByHash', [hash]), offset })
    }
    if (kind === 'remined') {
      await rpc(rpcUrl, 'anvil_reorg', [depth, taken.map(({ raw, offset }) => [raw, Math.min(depth - 1, offset + 1)])])
    } else {
      await rpc(rpcUrl, 'anvil_reorg', [depth, []])
      for (const { raw } of taken) {
        await rpc(rpcUrl, 'eth_sendRawTransaction', [raw]).catch((error: Error) => {
          if (!/already known|nonce too low/i.test(error.message)) throw error
        })
      }
    }
    return { kind, depth, transactions: taken.length, forkBlock }
  } finally {
    await rpc(rpcUrl, 'evm_setIntervalMining', [blockTimeSeconds])
  }
}
