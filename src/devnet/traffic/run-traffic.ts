/**
 * Demo traffic: real, signed settlements at a chosen rate, from many payers to several recipients, some
 * through a registered acquirer, each with a fresh order reference. Settlement is counted from the chain
 * (PermittedTransfer logs of the transactions sent here), not from the sends, so the reported rate is
 * what was actually mined.
 */
import { parseAbiItem, type Hex, type LocalAccount, type PublicClient } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import type { Deployment } from '../../wire/index.js'
import { randomBytes16 } from '../../wire/index.js'
import { createPermitTracker } from '../../chain/index.js'
import { sendPayment } from '../../chain/index.js'
import { createTxSender } from '../../chain/index.js'
import { ConfigError } from '../../config/index.js'

export interface TrafficOptions {
  publicClient: PublicClient
  deployment: Deployment
  relayerKey: Hex
  /** Turns a payer key into the account that signs its payments (default viem's `privateKeyToAccount`). */
  accountOf?(privateKey: Hex): LocalAccount
  /** Settlements per second to aim for; 0 = as fast as the in-flight limit allows. */
  rate: number
  /** Stop after this many sends (default: until aborted). */
  count?: number
  /** Share of payments that carry an acquirer id, 0..1. */
  acquirerShare?: number
  /** Sends awaiting the node's answer; bounds memory when the chain cannot keep up. */
  maxInFlight?: number
  progressIntervalMs?: number
  signal?: AbortSignal
  onProgress?(progress: TrafficProgress): void
}

export interface TrafficProgress {
  sent: number
  settled: number
  failed: number
  elapsedSeconds: number
  /** Settled per second since the start. */
  rate: number
  lastError?: string
}

const settlementEvent = parseAbiItem(
  'event PermittedTransfer(bytes32 indexed domainSeparator, address indexed token, address indexed payer, address recipient, uint256 value, uint256 fee, bytes32 orderReference)',
)
const TICK_MS = 20

export async function runTraffic(opts: TrafficOptions): Promise<TrafficProgress> {
  const { publicClient, deployment } = opts
  if (deployment.payerKeys.length === 0) throw new ConfigError('the deployment has no payerKeys: traffic needs a devnet deployment')
  const payers: LocalAccount[] = deployment.payerKeys.map((key) => (opts.accountOf ?? privateKeyToAccount)(key))
  const relayer = await createTxSender({ publicClient, privateKey: opts.relayerKey, chainId: deployment.chainId })
  const permits = createPermitTracker(publicClient)
  const maxInFlight = opts.maxInFlight ?? 256
  const acquirerShare = opts.acquirerShare ?? 0.3

  const progress: TrafficProgress = { sent: 0, settled: 0, failed: 0, elapsedSeconds: 0, rate: 0 }
  const unsettled = new Set<Hex>()
  let inFlight = 0
  let fromBlock = (await publicClient.getBlockNumber()) + 1n
  const started = Date.now()

  const sendOne = (i: number) => {
    inFlight++
    const useAcquirer = deployment.acquirers.length > 0 && Math.random() < acquirerShare
    sendPayment({
      publicClient,
      relayer,
      permits,
      settlementContract: deployment.settlementContract,
      payer: payers[i % payers.length] as LocalAccount,
      token: deployment.tokens[Math.floor(i / payers.length) % deployment.tokens.length]!.address,
      recipient: deployment.recipients[Math.floor(Math.random() * deployment.recipients.length)]!,
      principal: BigInt(1 + Math.floor(Math.random() * 500)) * 1_000_000n,
      orderReference: randomBytes16(),
      acquirerId: useAcquirer ? deployment.acquirers[i % deployment.acquirers.length]!.id : undefined,
    })
      .then((payment) => unsettled.add(payment.txHash))
      .catch((error: unknown) => {
        progress.failed++
        progress.lastError = (error as { shortMessage?: string }).shortMessage ?? String(error)
      })
      .finally(() => inFlight--)
  }

  /** Counts this run's transactions among the PermittedTransfer logs mined since the last look. */
  const countSettled = async () => {
    const head = await publicClient.getBlockNumber()
    if (head < fromBlock) return
    const logs = await publicClient.getLogs({ address: deployment.settlementContract, event: settlementEvent, fromBlock, toBlock: head })
    for (const log of logs) if (unsettled.delete(log.transactionHash)) progress.settled++
    fromBlock = head + 1n
  }

  let lastReport = started
  while (!opts.signal?.aborted && (opts.count === undefined || progress.sent < opts.count)) {
    const elapsed = (Date.now() - started) / 1000
    const due = opts.rate > 0 ? Math.floor(elapsed * opts.rate) : Number.MAX_SAFE_INTEGER
    const limit = opts.count ?? Number.MAX_SAFE_INTEGER
    while (progress.sent < due && progress.sent < limit && inFlight < maxInFlight) sendOne(progress.sent++)
    if (Date.now() - lastReport >= (opts.progressIntervalMs ?? 1000)) {
      lastReport = Date.now()
      await report()
    }
    await new Promise((resolve) => setTimeout(resolve, TICK_MS))
  }
  // Let the last sends land and be mined before the final count.
  while (inFlight > 0) await new Promise((resolve) => setTimeout(resolve, TICK_MS))
  if (!opts.signal?.aborted) await waitForSettlement()
  await report()
  return progress

  async function report() {
    await countSettled().catch(() => {})
    progress.elapsedSeconds = (Date.now() - started) / 1000
    progress.rate = progress.settled / Math.max(progress.elapsedSeconds, 0.001)
    opts.onProgress?.({ ...progress })
  }

  async function waitForSettlement() {
    const deadline = Date.now() + 30_000
    while (unsettled.size > 0 && Date.now() < deadline) {
      await countSettled()
      if (unsettled.size > 0) await new Promise((resolve) => setTimeout(resolve, 100))
    }
  }
}
