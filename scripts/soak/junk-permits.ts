/**
 * A sybil flood beside the soak's real payments (issue 21 item 1, issue 38 item 2): throwaway wallets —
 * 1,000 by default, keys that cost nothing — each connect, send 16 payments they can never pay (permit
 * nonces 0 to 15, one after the other), and leave; at most CONNECTIONS at a time, the wallets taken in
 * turn, round after round. The gateway must keep their future submissions within their own budgets
 * (evicting the oldest, refusing past the per-owner one) so that they never keep a real payment out, and
 * the submitter must fail what it took, while the real payments keep flowing.
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

/** Permit nonces 0, 1, … each wallet sends back to back in its turn. */
const BURST = 16
/** Sybil wallets connected at once (they share the soak's address with the real wallets). */
const CONNECTIONS = 32

export function startJunkPermits(opts: JunkPermitOptions): { stats: JunkPermitStats; owners: Hex[]; done: Promise<void> } {
  const { deployment, directory } = opts
  const stats: JunkPermitStats = { sent: 0, answers: {} }
  const accounts = Array.from({ length: opts.wallets }, () => privateKeyToAccount(generatePrivateKey()))
  const token = directory.tokens[0]!
  const tokenDomain = { name: token.name, version: token.version, chainId: deployment.chainId, verifyingContract: token.address }
  const tally = (answer: string) => (stats.answers[answer] = (stats.answers[answer] ?? 0) + 1)

  let turn = 0
  const done = Promise.all(Array.from({ length: opts.rate > 0 ? CONNECTIONS : 0 }, () => sender())).then(() => {})

  /** One connection at a time: the next wallet in turn connects, sends its burst paced to `rate` overall, and leaves. */
  async function sender(): Promise<void> {
    while (!opts.signal.aborted) {
      const payer = accounts[turn++ % accounts.length]!
      const wallet = new WalletClient({ url: opts.gatewayUrl, account: payer, chainId: deployment.chainId })
      try {
        await wallet.connect()
        for (let nonce = 0n; nonce < BURST && !opts.signal.aborted; nonce++) {
          await sendJunk(wallet, payer, nonce)
          await new Promise((resolve) => setTimeout(resolve, (1000 * CONNECTIONS) / opts.rate))
        }
      } catch {
        tally('NO_CONNECTION')
      } finally {
        wallet.disconnect()
      }
    }
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
