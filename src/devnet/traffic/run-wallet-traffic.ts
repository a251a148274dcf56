/**
 * Demo traffic through the processor's real path: each of the deployment's payers is a wallet with its
 * own `WalletClient` connection to the gateway, paying one payment at a time (`pay` follows it to
 * SUCCESS) to a random recipient, so the gateway, the queue, the submitter and the chain all carry it.
 * `rate` spreads the starts over time; 0 keeps every wallet busy.
 */
import type { Hex, LocalAccount } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import type { Directory } from '../../chain/index.js'
import type { Deployment } from '../../wire/index.js'
import { randomBytes16, ZERO_BYTES16 } from '../../wire/index.js'
import { WalletClient } from '../../sdk/index.js'
import type { TrafficProgress } from './run-traffic.js'
import { ConfigError } from '../../config/index.js'

export interface WalletTrafficOptions {
  deployment: Deployment
  directory: Directory
  gatewayUrl: string
  /** Turns a payer key into the account that signs its payments (default viem's `privateKeyToAccount`). */
  accountOf?(privateKey: Hex): LocalAccount
  rate: number
  count?: number
  acquirerShare?: number
  /** Seconds each signed payment stays valid. */
  validitySeconds?: number
  progressIntervalMs?: number
  signal?: AbortSignal
  onProgress?(progress: TrafficProgress): void
}

const TICK_MS = 20

export async function runWalletTraffic(opts: WalletTrafficOptions): Promise<TrafficProgress> {
  const { deployment, directory } = opts
  if (deployment.payerKeys.length === 0) throw new ConfigError('the deployment has no payerKeys: traffic needs a devnet deployment')
  const progress: TrafficProgress = { sent: 0, settled: 0, failed: 0, elapsedSeconds: 0, rate: 0 }
  const wallets = deployment.payerKeys.map((key) => walletFor((opts.accountOf ?? privateKeyToAccount)(key)))
  await Promise.all(wallets.map((w) => w.connect()))
  const idle = [...wallets]
  const started = Date.now()
  let inFlight = 0
  let lastReport = started

  const payOnce = (wallet: WalletClient, i: number) => {
    inFlight++
    const token = directory.tokens[i % directory.tokens.length]!
    const useAcquirer = deployment.acquirers.length > 0 && Math.random() < (opts.acquirerShare ?? 0.3)
    wallet
      .pay(
        {
          token: token.address,
          beneficiary: deployment.recipients[Math.floor(Math.random() * deployment.recipients.length)]!,
          principal: String(BigInt(1 + Math.floor(Math.random() * 500)) * 1_000_000n),
          orderReference: randomBytes16(),
          acquirerId: useAcquirer ? deployment.acquirers[i % deployment.acquirers.length]!.id : ZERO_BYTES16,
          deadline: Math.floor(Date.now() / 1000) + (opts.validitySeconds ?? 600),
          chainId: deployment.chainId,
          settlementContract: deployment.settlementContract,
          walletGatewayUrl: opts.gatewayUrl,
        },
        token,
      )
      .then((final) => {
        if (final.status === 'SUCCESS') progress.settled++
        else {
          progress.failed++
          progress.lastError = `${final.failureCategory}: ${final.failureReason}`
        }
      })
      .catch((error: Error) => {
        progress.failed++
        progress.lastError = error.message
      })
      .finally(() => {
        inFlight--
        idle.push(wallet)
      })
  }

  const limit = opts.count ?? Number.MAX_SAFE_INTEGER
  while (!opts.signal?.aborted && progress.sent < limit) {
    const due = opts.rate > 0 ? Math.floor(((Date.now() - started) / 1000) * opts.rate) : Number.MAX_SAFE_INTEGER
    while (progress.sent < Math.min(due, limit) && idle.length > 0) payOnce(idle.shift()!, progress.sent++)
    if (Date.now() - lastReport >= (opts.progressIntervalMs ?? 1000)) {
      lastReport = Date.now()
      report()
    }
    await new Promise((resolve) => setTimeout(resolve, TICK_MS))
  }
  while (inFlight > 0 && !opts.signal?.aborted) await new Promise((resolve) => setTimeout(resolve, TICK_MS))
  for (const wallet of wallets) wallet.disconnect()
  report()
  return progress

  function report() {
    progress.elapsedSeconds = (Date.now() - started) / 1000
    progress.rate = progress.settled / Math.max(progress.elapsedSeconds, 0.001)
    opts.onProgress?.({ ...progress })
  }

  function walletFor(account: LocalAccount): WalletClient {
    return new WalletClient({ url: opts.gatewayUrl, account, chainId: deployment.chainId, onError: (error) => (progress.lastError = error.message) })
  }
}

