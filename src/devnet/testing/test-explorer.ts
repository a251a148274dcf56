/**
 * Test harness for the explorer: a real explorer (in-process, or as a child process for kill -9
 * tests) on a local chain, plus what the chain itself says the settlements are, read independently
 * through viem and the compiled ABI, to compare the explorer against.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { request } from 'node:http'
import { once } from 'node:events'
import { rmSync } from 'node:fs'
import { createPublicClient, http } from 'viem'
import { settlementAbi } from '../../chain/index.js'
import { explorerOptionsFromEnv } from '../../config/index.js'
import { startExplorer, type RunningExplorer } from '../../explorer/index.js'
import type { Hex, Settlement } from '../../wire/index.js'
import type { LocalChain } from './local-chain.js'
import { scriptArgs } from './script.js'
import { tempDir } from './temp-dir.js'

export interface TestExplorer extends RunningExplorer {
  dataDir: string
  get(path: string): Promise<{ status: number; body: any; headers: Headers }>
}

export function explorerEnv(chain: LocalChain, overrides: Record<string, string> = {}): Record<string, string> {
  return {
    RPC_URL: chain.rpcUrl,
    SETTLEMENT_CONTRACT: chain.deployment.settlementContract,
    START_BLOCK: String(chain.deployment.startBlock),
    EXPLORER_PORT: '0',
    POLL_INTERVAL_MS: '50',
    LOG_LEVEL: 'error',
    ...overrides,
  }
}

export const tempDataDir = () => tempDir('explorer-test-')

export async function startTestExplorer(chain: LocalChain, overrides: Record<string, string> = {}): Promise<TestExplorer> {
  const dataDir = overrides.DATA_DIR ?? tempDataDir()
  const explorer = await startExplorer(explorerOptionsFromEnv(explorerEnv(chain, { DATA_DIR: dataDir, ...overrides })))
  return {
    ...explorer,
    dataDir,
    get: (path) => getJson(explorer.url, path),
    async stop() {
      await explorer.stop()
      if (!overrides.DATA_DIR) rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

export async function getJson(baseUrl: string, path: string): Promise<{ status: number; body: any; headers: Headers }> {
  const response = await fetch(baseUrl + path)
  const text = await response.text()
  return { status: response.status, body: text ? JSON.parse(text) : undefined, headers: response.headers }
}

/** GET on a connection of its own, closed after the answer: behind SERVER_THREADS the kernel may hand it to any thread. */
export function freshGet(url: string): Promise<{ status: number; body: string; headers: Headers }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent: false, headers: { connection: 'close' } }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => (body += chunk))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, headers: new Headers(res.headers as Record<string, string>) }))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end()
  })
}

/** Polls until `check` returns a value other than undefined/false, or fails after `timeoutMs`. */
export async function waitFor<T>(what: string, check: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const value = await check()
    if (value !== undefined && value !== false) return value
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}

/** Waits until the explorer has indexed the chain's current head. */
export async function waitForHead(chain: LocalChain, baseUrl: string): Promise<void> {
  const client = createPublicClient({ transport: http(chain.rpcUrl) })
  const head = Number(await client.getBlockNumber({ cacheTime: 0 }))
  await waitFor(`explorer to index block ${head}`, async () => {
    const root = await getJson(baseUrl, '/').catch(() => undefined)
    return (root?.body?.indexedHead?.blockNumber ?? -1) >= head
  })
}

/** Every settlement on the chain, in chain order, decoded with viem from the contract's ABI. */
export async function settlementsOnChain(chain: LocalChain): Promise<Settlement[]> {
  const client = createPublicClient({ transport: http(chain.rpcUrl) })
  const logs = await client.getContractEvents({
    address: chain.deployment.settlementContract,
    abi: settlementAbi,
    eventName: 'PermittedTransfer',
    fromBlock: 0n,
    toBlock: 'latest',
  })
  const timestamps = new Map<bigint, number>()
  for (const log of logs) {
    if (!timestamps.has(log.blockNumber)) timestamps.set(log.blockNumber, Number((await client.getBlock({ blockNumber: log.blockNumber })).timestamp))
  }
  const tokens = new Map(chain.deployment.tokens.map((t) => [t.address.toLowerCase(), t]))
  return logs.map((log) => {
    const args = log.args as { domainSeparator: Hex; token: Hex; payer: Hex; recipient: Hex; value: bigint; fee: bigint; orderReference: Hex }
    const token = tokens.get(args.token.toLowerCase())!
    return {
      txHash: log.transactionHash.toLowerCase() as Hex,
      blockNumber: Number(log.blockNumber),
      logIndex: log.logIndex,
      timestamp: timestamps.get(log.blockNumber)!,
      token: args.token.toLowerCase() as Hex,
      tokenSymbol: token.symbol,
      tokenDecimals: token.decimals,
      payer: args.payer.toLowerCase() as Hex,
      recipient: args.recipient.toLowerCase() as Hex,
      amount: args.value.toString(),
      fee: args.fee.toString(),
      orderReference: args.orderReference.slice(0, 34).toLowerCase() as Hex,
      acquirerId: `0x${args.orderReference.slice(34).toLowerCase()}` as Hex,
      domainSeparator: args.domainSeparator.toLowerCase() as Hex,
    }
  })
}

/** Pages through `/events` with `query` until `nextCursor` is null. */
export async function pageThrough(baseUrl: string, query: Record<string, string>): Promise<{ events: Settlement[]; totals: number[]; pages: number }> {
  const events: Settlement[] = []
  const totals: number[] = []
  let cursor: string | null = null
  let pages = 0
  do {
    const params = new URLSearchParams({ ...query, ...(cursor ? { cursor } : {}) })
    const { status, body } = await getJson(baseUrl, `/events?${params}`)
    if (status !== 200) throw new Error(`GET /events?${params} answered ${status}: ${JSON.stringify(body)}`)
    events.push(...body.events)
    totals.push(body.total)
    cursor = body.nextCursor
    pages++
  } while (cursor)
  return { events, totals, pages }
}

/** The explorer as its own process (`npm run explorer`), so a test can kill -9 it. */
export function spawnExplorer(env: Record<string, string>): ChildProcess {
  return spawn(process.execPath, scriptArgs('scripts/explorer.ts'), {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  })
}

/** `spawnExplorer`, resolved once `/health` at `baseUrl` answers; rejects with its stderr if it exits first. */
export async function startExplorerProcess(env: Record<string, string>, baseUrl: string): Promise<ChildProcess> {
  const child = spawnExplorer(env)
  let stderr = ''
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const exited = once(child, 'exit').then(([code]) => {
    throw new Error(`the explorer exited (${code}) before serving: ${stderr}`)
  })
  exited.catch(() => {})
  await Promise.race([waitFor('the explorer process to serve', async () => (await getJson(baseUrl, '/health').catch(() => undefined))?.status === 200), exited])
  return child
}

/**
 * `startExplorerProcess` on any free port (EXPLORER_PORT=0), and the port it got, read from its
 * `explorer listening` line: no port picked up front that another test's server could take first.
 * Not for a restart that clients must find on the same URL: this uWS build sets SO_REUSEADDR only on a
 * given port, so the connections a port-0 listener accepted, in TIME_WAIT after it ends, keep the port
 * from being bound again for a minute (such tests keep a port picked up front).
 */
export async function startExplorerProcessOnAnyPort(env: Record<string, string>): Promise<{ child: ChildProcess; port: number; url: string }> {
  const child = spawnExplorer({ ...env, EXPLORER_PORT: '0', LOG_LEVEL: 'info' })
  let stderr = ''
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const listening = () => {
    if (child.exitCode !== null) throw new Error(`the explorer exited (${child.exitCode}) before listening: ${stderr}`)
    return /"msg":"explorer listening".*?"url":"http:\/\/[^"/]*:(\d+)[/"]/.exec(stderr)?.[1]
  }
  const port = Number(await waitFor('the explorer process to listen', listening))
  const url = `http://127.0.0.1:${port}`
  await waitFor('the explorer process to serve', async () => (await getJson(url, '/health').catch(() => undefined))?.status === 200)
  return { child, port, url }
}

export const key = (e: { blockNumber: number; logIndex: number }) => `${e.blockNumber}:${e.logIndex}`
