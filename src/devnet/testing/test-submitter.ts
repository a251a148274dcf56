/**
 * Test harness for the processor pieces: a real embedded PostgreSQL, submitters in-process or as child
 * processes (for kill -9), the queue filled the way a gateway fills it, and what the chain says was
 * settled, read independently through viem.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { createInterface } from 'node:readline'
import { parseAbiItem, type Hex } from 'viem'
import { createChainClient } from '../../chain/index.js'
import { intentOfPayment } from '../../wire/index.js'
import { submitterSettingsFromEnv } from '../../config/index.js'
import { openDatabase, type Database } from '../../processor/db/index.js'
import { enqueueSubmission, findSubmission, type SubmissionRow } from '../../processor/db/index.js'
import { createLogger } from '../../platform/observability/index.js'
import { startSubmitter, type RunningSubmitter } from '../../processor/submitter/index.js'
import { testDatabase, testDatabaseDir } from '../test-database/index.js'
import { waitFor } from './test-explorer.js'
import { startLocalChain, type LocalChain } from './local-chain.js'
import type { SignedRequest } from './payment-requests.js'
import { scriptArgs } from './script.js'

/**
 * A local chain and a database for a test file, started together; `ownServer` for a test that stops the
 * database (its `close()` then stops the server). If one fails, the other is stopped before the error is
 * thrown, so a failed start leaves no server holding the file's process.
 */
export async function startChainAndDatabase({ ownServer = false } = {}): Promise<{ chain: LocalChain; db: Database }> {
  const options = ownServer ? Promise.resolve({ embeddedDir: testDatabaseDir() }) : testDatabase()
  const [chain, db] = await Promise.allSettled([startLocalChain(), options.then((options) => openDatabase(options, createLogger('silent')))])
  if (chain.status === 'fulfilled' && db.status === 'fulfilled') return { chain: chain.value, db: db.value }
  if (chain.status === 'fulfilled') await chain.value.stop()
  if (db.status === 'fulfilled') await db.value.close()
  throw chain.status === 'rejected' ? chain.reason : (db as PromiseRejectedResult).reason
}

export function submitterEnv(chain: LocalChain, db: Database, overrides: Record<string, string> = {}): Record<string, string> {
  return {
    DATABASE_URL: db.url,
    RPC_URL: chain.rpcUrl,
    SETTLEMENT_CONTRACT: chain.deployment.settlementContract,
    RELAYER_PRIVATE_KEY: chain.deployment.relayerKey!,
    SUBMITTER_STANDBY_POLL_MS: '100',
    SUBMITTER_IDLE_POLL_MS: '100',
    LOG_LEVEL: 'error',
    ...overrides,
  }
}

export function startTestSubmitter(chain: LocalChain, db: Database, overrides: Record<string, string> = {}): Promise<RunningSubmitter> {
  return startSubmitter(submitterSettingsFromEnv(submitterEnv(chain, db, overrides)), { db, log: createLogger('error') })
}

/** `npm run submitter` as a child process, to be killed with SIGKILL; `onActive` fires when it takes the lock. */
export function spawnSubmitter(chain: LocalChain, db: Database, onActive: () => void, overrides: Record<string, string> = {}): ChildProcess {
  const child = spawn(process.execPath, scriptArgs('scripts/submitter.ts'), {
    env: { ...process.env, ...submitterEnv(chain, db, { LOG_LEVEL: 'info', ...overrides }) },
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  createInterface({ input: child.stderr! }).on('line', (line) => {
    if (line.includes('"msg":"active:')) onActive()
    else if (line.includes('"level":"error"') || line.includes('"level":"warn"')) process.stderr.write(`submitter ${child.pid}: ${line}\n`)
  })
  return child
}

export async function enqueue(db: Database, signed: SignedRequest[]): Promise<void> {
  for (const { request, payer, digest } of signed) {
    const { outcome } = await enqueueSubmission(db.pool, { intent: intentOfPayment(request), callerAddress: payer, digest, request })
    if (outcome !== 'enqueued') throw new Error(`${request.payloadId} was not enqueued: ${outcome}`)
  }
}

export async function waitForFinal(db: Database, payloadIds: string[], timeoutMs = 60_000): Promise<SubmissionRow[]> {
  return waitFor(
    `${payloadIds.length} submissions to finish`,
    async () => {
      const rows = await Promise.all(payloadIds.map((id) => findSubmission(db.pool, id)))
      return rows.every((row) => row && (row.status === 'SUCCESS' || row.status === 'FAILURE')) && (rows as SubmissionRow[])
    },
    timeoutMs,
  )
}

const settlementEvent = parseAbiItem(
  'event PermittedTransfer(bytes32 indexed domainSeparator, address indexed token, address indexed payer, address recipient, uint256 value, uint256 fee, bytes32 orderReference)',
)

/** Every settlement on the chain: its order reference (high half of `ref`) and transaction. */
export async function settlementRefsOnChain(chain: LocalChain): Promise<{ orderReference: Hex; txHash: Hex }[]> {
  const publicClient = createChainClient({ rpcUrl: chain.rpcUrl })
  const logs = await publicClient.getLogs({ address: chain.deployment.settlementContract, event: settlementEvent, fromBlock: BigInt(chain.deployment.startBlock) })
  return logs.map((log) => ({ orderReference: log.args.orderReference!.slice(0, 34).toLowerCase() as Hex, txHash: log.transactionHash }))
}
