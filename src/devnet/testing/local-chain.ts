/**
 * A throwaway devnet per test file: anvil on a free port (automine unless a block time is asked for)
 * with `deployDevnet` applied (or its state loaded: `deployedDevnet`), and a helper that sends real, varied
 * settlements through it.
 */
import { createTestClient, http, type Hex, type TransactionReceipt } from 'viem'
import { startAnvil } from '../anvil/index.js'
import { createChainClient } from '../../chain/index.js'
import { deployDevnet } from '../local-devnet/index.js'
import type { Deployment } from '../../wire/index.js'
import { randomBytes16 } from '../../wire/index.js'
import { createPermitTracker } from '../../chain/index.js'
import { sendPayment, type SentPayment } from '../../chain/index.js'
import { createTxSender } from '../../chain/index.js'
import { addressOfKey, nativeAccount } from '../../chain/index.js'
import { localRelayerKey } from '../../config/index.js'

export interface LocalChain {
  rpcUrl: string
  deployment: Deployment
  stop(): Promise<void>
}

export async function startLocalChain(opts: { blockTime?: number } = {}): Promise<LocalChain> {
  const anvil = await startAnvil({ port: 0 })
  try {
    const deployment = await deployedDevnet(anvil.rpcUrl)
    // Deploy on automine (fast), then switch to interval mining if asked.
    if (opts.blockTime !== undefined) {
      await createTestClient({ mode: 'anvil', transport: http(anvil.rpcUrl) }).setIntervalMining({ interval: opts.blockTime })
    }
    return { rpcUrl: anvil.rpcUrl, deployment, stop: anvil.stop }
  } catch (error) {
    await anvil.stop()
    throw error
  }
}

/**
 * The first chain of a process is deployed with `deployDevnet`; the next ones load the state it had right
 * after (`anvil_dumpState`, `anvil_loadState`: accounts, blocks, receipts and logs), the same devnet for
 * ~0.1 s instead of ~0.6 s and ~0.3 CPU-s of the forty-odd transactions (npm test runs many files in one
 * process: scripts/test-group.ts).
 */
let deployed: Promise<{ deployment: Deployment; state: Hex }> | undefined

async function deployedDevnet(rpcUrl: string): Promise<Deployment> {
  const anvil = createTestClient({ mode: 'anvil', transport: http(rpcUrl) })
  if (deployed === undefined) {
    deployed = deployDevnet({ rpcUrl }).then(async (deployment) => ({ deployment, state: await anvil.dumpState() }))
    try {
      return (await deployed).deployment
    } catch (error) {
      // The next chain deploys again rather than failing with this one.
      deployed = undefined
      throw error
    }
  }
  const { deployment, state } = await deployed
  await anvil.loadState({ state })
  // A copy: a test may change its chain's deployment without touching another's.
  return structuredClone({ ...deployment, rpcUrl })
}

export interface SendSettlementsOptions {
  /** Every k-th payment carries an acquirer id (cycling through the deployment's acquirers); default 3. */
  acquirerEvery?: number
  /** Principal of each payment in token units; default varies per payment. */
  principal?: (i: number) => bigint
  /** Order reference of each payment; default random. */
  orderReference?: (i: number) => Hex
  /** Recipient of each payment given its payer's address (a payer may pay itself); default cycles through the deployment's recipients. */
  recipient?: (i: number, payer: Hex) => Hex
  /** Permit deadline in Unix seconds; default an hour past the wall clock (set it further when the chain's clock is moved on). */
  deadline?: bigint
}

export interface SentSettlement extends SentPayment {
  receipt: TransactionReceipt
}

/** Sends `n` payments concurrently (varied payers, recipients, tokens) and waits until all are mined. */
export async function sendSettlements(
  chain: LocalChain,
  n: number,
  opts: SendSettlementsOptions = {},
): Promise<SentSettlement[]> {
  const { deployment } = chain
  const publicClient = createChainClient({ rpcUrl: chain.rpcUrl, pollingIntervalMs: 50 })
  const relayer = await createTxSender({
    publicClient,
    privateKey: deployment.relayerKey ?? localRelayerKey,
    chainId: deployment.chainId,
  })
  const permits = createPermitTracker(publicClient)
  const acquirerEvery = opts.acquirerEvery ?? 3
  const sent = await Promise.all(
    Array.from({ length: n }, (_, i) => {
      const payer = nativeAccount(pick(deployment.payerKeys, i))
      return sendPayment({
        publicClient,
        relayer,
        permits,
        settlementContract: deployment.settlementContract,
        payer,
        token: pick(deployment.tokens, i).address,
        recipient: opts.recipient?.(i, payer.address) ?? pick(deployment.recipients, i),
        principal: opts.principal?.(i) ?? 1_000_000n * BigInt(1 + (i % 50)),
        orderReference: opts.orderReference?.(i) ?? randomBytes16(),
        acquirerId: i % acquirerEvery === acquirerEvery - 1 ? pick(deployment.acquirers, i).id : undefined,
        deadline: opts.deadline,
      })
    }),
  )
  const receipts = await Promise.all(sent.map((p) => publicClient.waitForTransactionReceipt({ hash: p.txHash })))
  return sent.map((payment, i) => ({ ...payment, receipt: receipts[i] as TransactionReceipt }))
}

/** The address of the deployment's k-th payer, lowercase. */
export const payerAddress = (chain: LocalChain, k: number) => addressOfKey(chain.deployment.payerKeys[k]!)

/**
 * Recipients for `sendSettlements` that exercise the `address` filter: every sixth payment a
 * self-payment, every sixth (offset 3) one payer paying another (payer i + 7), the rest to recipients.
 */
export function paymentsBetweenPayers(chain: LocalChain): NonNullable<SendSettlementsOptions['recipient']> {
  return (i, payer) => {
    if (i % 6 === 0) return payer
    if (i % 6 === 3) return payerAddress(chain, (i + 7) % chain.deployment.payerKeys.length)
    return chain.deployment.recipients[i % chain.deployment.recipients.length]!
  }
}

/**
 * Mines one empty block stamped after `ms` (wall-clock milliseconds since the epoch) on the chain's own
 * clock. anvil's clock can trail the wall clock by over a second on a busy machine (seen: a block mined a
 * second after a charge's deadline stamped 0.2 s before it), so a test of anything that goes by block
 * time sets the block's time rather than assuming it.
 */
export async function mineBlockAfter(rpcUrl: string, ms: number): Promise<void> {
  const latest = await chainRpc<{ timestamp: Hex }>(rpcUrl, 'eth_getBlockByNumber', ['latest', false])
  await chainRpc(rpcUrl, 'evm_setNextBlockTimestamp', [Math.max(Math.floor(ms / 1000) + 1, Number(latest.timestamp) + 1)])
  await chainRpc(rpcUrl, 'evm_mine')
}

/** One JSON-RPC call to the node, for the methods viem has no action for (anvil_reorg, evm_snapshot…); throws its error. */
export async function chainRpc<T = unknown>(rpcUrl: string, method: string, params: unknown[] = []): Promise<T> {
  const response = await fetch(rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  })
  const body = (await response.json()) as { result: T; error?: { message: string } }
  if (body.error) throw new Error(`${method}: ${body.error.message}`)
  return body.result
}

function pick<T>(items: T[], i: number): T {
  const item = items[i % items.length]
  if (item === undefined) throw new Error('the deployment has no items of this kind')
  return item
}
