/**
 * A hostile flood beside the soak's real payments (issue 21, item 1): unfunded wallets, each on its own
 * gateway connection, submit payments they can never pay with permit nonces from their token's on.
 * Signing costs them nothing; every permit queued costs the submitter re-checks. The gateway must bound
 * what they queue (NONCE_MISMATCH past the token nonce plus their queued ones, RATE_LIMIT_EXCEEDED past the
 * per-owner cap) and the submitter must fail what it took, while the real payments keep flowing.
 */
import type { Hex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import type { Directory } from '../../src/chain/index.js'
import type { Database } from '../../src/processor/db/index.js'
import { GatewayError, WalletClient } from '../../src/sdk/index.js'
import type { Deployment } from '../../src/wire/index.js'
import { randomBytes16, signPayment, transferRequestOf } from '../../src/wire/index.js'

export interface JunkPermitStats {
  sent: number
  /** Answers by kind: `ACK`, or the refusal's error code. */
  answers: Record<string, number>
}

export interface JunkPermitOptions {
  deployment: Deployment
  directory: Directory
  gatewayUrl: string
  wallets: number
  /** Junk payments per second over all wallets. */
  rate: number
  signal: AbortSignal
}

/**
 * Each wallet in turn sends permit nonces 0, 1, … this far back to back: the gateway takes the first ones
 * (each within the token's nonce 0 plus the ones queued before it) up to its per-owner cap, the submitter
 * fails nonce 0 (no balance) and keeps the rest waiting for a nonce that never comes, and the gateway
 * refuses what passes the bound or the cap.
 */
const BURST = 24

export function startJunkPermits(opts: JunkPermitOptions): { stats: JunkPermitStats; owners: Hex[]; done: Promise<void> } {
  const { deployment, directory } = opts
  const stats: JunkPermitStats = { sent: 0, answers: {} }
  const accounts = Array.from({ length: opts.wallets }, () => privateKeyToAccount(generatePrivateKey()))
  const token = directory.tokens[0]!
  const tokenDomain = { name: token.name, version: token.version, chainId: deployment.chainId, verifyingContract: token.address }
  const tally = (answer: string) => (stats.answers[answer] = (stats.answers[answer] ?? 0) + 1)

  const done = (async () => {
    const wallets = accounts.map((account) => new WalletClient({ url: opts.gatewayUrl, account, chainId: deployment.chainId }))
    await Promise.all(wallets.map((w) => w.connect()))
    const bursts: Promise<void>[] = []
    for (let turn = 0; opts.rate > 0 && !opts.signal.aborted; turn++) {
      const i = turn % wallets.length
      bursts.push(sendBurst(wallets[i]!, accounts[i]!))
      await new Promise((resolve) => setTimeout(resolve, (1000 * BURST) / opts.rate))
    }
    await Promise.all(bursts)
    for (const wallet of wallets) wallet.disconnect()
  })()

  async function sendBurst(wallet: WalletClient, payer: (typeof accounts)[number]): Promise<void> {
    for (let nonce = 0n; nonce < BURST && !opts.signal.aborted; nonce++) await sendJunk(wallet, payer, nonce)
  }

  async function sendJunk(wallet: WalletClient, payer: (typeof accounts)[number], permitNonce: bigint): Promise<void> {
    stats.sent++
    const signed = await signPayment({
      payer,
      settlementContract: deployment.settlementContract,
      tokenDomain,
      recipient: deployment.recipients[0]!,
      principal: 1_000_000n,
      fee: 0n,
      permitNonce,
      deadline: BigInt(Math.floor(Date.now() / 1000) + 3600),
      orderReference: randomBytes16(),
    })
    try {
      await wallet.submitPayment(transferRequestOf(signed, crypto.randomUUID()))
      tally('ACK')
    } catch (error) {
      tally(error instanceof GatewayError ? error.errorCode : 'NO_ANSWER')
    }
  }

  return { stats, owners: accounts.map((a) => a.address.toLowerCase() as Hex), done }
}

/** What became of the junk the gateway queued: every row must end FAILURE, none SUCCESS. */
export async function junkOutcome(db: Database, owners: Hex[]): Promise<{ queued: number; open: number; succeeded: number; failed: Record<string, number> }> {
  const { rows } = await db.pool.query<{ status: string; category: string | null; n: number }>(
    `SELECT status, failure_category AS category, count(*)::int AS n FROM submissions WHERE owner = ANY($1) GROUP BY 1, 2`,
    [owners],
  )
  const failed: Record<string, number> = {}
  for (const row of rows) if (row.status === 'FAILURE') failed[row.category ?? '?'] = row.n
  const count = (keep: (status: string) => boolean) => rows.filter((r) => keep(r.status)).reduce((n, r) => n + r.n, 0)
  return { queued: count(() => true), open: count((s) => s !== 'SUCCESS' && s !== 'FAILURE'), succeeded: count((s) => s === 'SUCCESS'), failed }
}
