/**
 * The start-up check that RPC_URL's nodes serve CHAIN_ID: every node that answers must (a wrong one is
 * a configuration error, whichever entry it is), and at least one must answer. A node down at start is
 * checked later, before its first use (failover-transport.ts). Nodes are named by their place in RPC_URL
 * and their host, never the whole URL (it may carry a key).
 */
import { ConfigError } from '../../config/index.js'
import type { ChainClient } from '../create-chain-client.js'

export async function checkChainId(client: ChainClient, chainId: number): Promise<void> {
  const answers = await client.transport.checkChainIds()
  const name = (i: number) => (answers.length > 1 ? `RPC_URL's node ${i + 1} (${answers[i]!.host})` : `RPC_URL (${answers[i]!.host})`)
  const wrong = answers.findIndex((answer) => answer.chainId !== undefined && answer.chainId !== chainId)
  if (wrong >= 0) throw new ConfigError(`CHAIN_ID is ${chainId} but ${name(wrong)} serves chain ${answers[wrong]!.chainId}`)
  if (answers.every((answer) => answer.chainId === undefined)) {
    const error = answers[0]!.error
    const reason = (error as { shortMessage?: string }).shortMessage ?? (error as Error).message
    const first = `${name(0)} does not answer: ${reason.split('\n')[0]}`
    throw new ConfigError(answers.length > 1 ? `no node of RPC_URL answers (${first})` : first, { cause: error })
  }
}
