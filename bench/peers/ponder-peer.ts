/**
 * Ponder as a bench peer (bench/sections/peers.ts): its project in bench/peers/ponder/ has its own
 * package.json and lock file (never a dependency of the product) and runs on the Node 22 binary the npm
 * package `node` installs there (Ponder ≥ 0.17 needs Node ≥ 22; the product stays on Node 20).
 * `ensurePonder` installs it on first use (`npm ci` in that folder); after that the section runs offline.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { createWriteStream, existsSync, readFileSync, statSync } from 'node:fs'
import { createServer } from 'node:net'
import { fileURLToPath } from 'node:url'
import { cpuSeconds } from '../lib/proc.js'

export const PONDER_DIR = fileURLToPath(new URL('./ponder/', import.meta.url))
const NODE22 = `${PONDER_DIR}node_modules/.bin/node`
const PONDER_BIN = `${PONDER_DIR}node_modules/ponder/dist/esm/bin/ponder.js`

export interface PonderInstall {
  ponder: string
  node: string
  /** Seconds `npm ci` took in this run; undefined when it was installed already. */
  setupSeconds?: number
}

const installedVersion = () => (JSON.parse(readFileSync(`${PONDER_DIR}node_modules/ponder/package.json`, 'utf8')) as { version: string }).version

/** Installs the peer when its node_modules is missing or older than its lock file; answers the versions. */
export function ensurePonder(log: (line: string) => void): PonderInstall {
  // npm writes node_modules/.package-lock.json at each install: older than the lock file means the lock changed since.
  const marker = `${PONDER_DIR}node_modules/.package-lock.json`
  const current = existsSync(marker) && existsSync(NODE22) && existsSync(PONDER_BIN) && statSync(marker).mtimeMs >= statSync(`${PONDER_DIR}package-lock.json`).mtimeMs
  let setupSeconds: number | undefined
  if (!current) {
    log('peers: installing Ponder into bench/peers/ponder (npm ci, first use only)')
    const started = performance.now()
    const result = spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: PONDER_DIR, encoding: 'utf8' })
    if (result.status !== 0) throw new Error(`npm ci in bench/peers/ponder failed (exit ${result.status}):\n${result.stderr}`)
    setupSeconds = (performance.now() - started) / 1000
  }
  const node = spawnSync(NODE22, ['--version'], { encoding: 'utf8' }).stdout.trim()
  return { ponder: installedVersion(), node, setupSeconds }
}

async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise((resolve) => server.close(resolve))
  return port
}

export interface PonderPeer {
  url: string
  process: ChildProcess
  /** Seconds from spawn to /health answering 200. */
  startSeconds: number
  /** When Ponder logged that its backfill started (performance.now() of this process) and its CPU seconds then. */
  backfillStarted?: { at: number; cpu: number }
  /** The block Ponder's /status reports indexed (0 before the first). */
  indexedBlock(): Promise<number>
  stop(): Promise<void>
}

export async function startPonder(options: { rpcUrl: string; chainId: number; contract: string; startBlock: number; pglite: string; pollingMs: number; logFile: string }): Promise<PonderPeer> {
  const port = await freePort()
  const started = performance.now()
  const child = spawn(NODE22, [PONDER_BIN, 'start', '--schema', 'bench', '--port', String(port), '-H', '127.0.0.1', '--log-level', 'info', '--log-format', 'json'], {
    cwd: PONDER_DIR,
    env: {
      PATH: process.env.PATH ?? '',
      HOME: process.env.HOME ?? '/tmp',
      PEER_RPC_URL: options.rpcUrl,
      PEER_CHAIN_ID: String(options.chainId),
      PEER_CONTRACT: options.contract,
      PEER_START_BLOCK: String(options.startBlock),
      PEER_PGLITE_DIR: options.pglite,
      PEER_POLLING_MS: String(options.pollingMs),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  const logFile = createWriteStream(options.logFile)
  let backfillStarted: PonderPeer['backfillStarted']
  const keep = (chunk: Buffer) => {
    const text = chunk.toString()
    // The start of indexing proper: what comes before it (build, PGlite, tables) is start-up.
    if (!backfillStarted && text.includes('"msg":"Started backfill indexing"')) backfillStarted = { at: performance.now(), cpu: cpuSeconds(child.pid!) }
    output = (output + text).slice(-20_000)
    logFile.write(chunk)
  }
  child.stdout!.on('data', keep)
  child.stderr!.on('data', keep)
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve))
  const url = `http://127.0.0.1:${port}`
  const deadline = performance.now() + 180_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`ponder start exited with ${child.exitCode}:\n${output}`)
    if (performance.now() > deadline) {
      child.kill('SIGKILL')
      throw new Error(`ponder start did not answer /health within 180 s:\n${output}`)
    }
    const ok = await fetch(`${url}/health`).then((r) => r.ok, () => false)
    if (ok) break
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  const startSeconds = (performance.now() - started) / 1000
  return {
    url,
    process: child,
    startSeconds,
    get backfillStarted() {
      return backfillStarted
    },
    async indexedBlock() {
      if (child.exitCode !== null || child.signalCode !== null) throw new Error(`ponder exited (${child.exitCode ?? child.signalCode}):\n${output}`)
      // A refused or reset connection while Ponder works is not an answer: the caller asks again.
      const response = await fetch(`${url}/status`).catch(() => undefined)
      if (!response?.ok) return 0
      const status = (await response.json()) as Record<string, { block?: { number: number } }>
      return status.bench?.block?.number ?? 0
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000)
      await exited
      clearTimeout(timer)
    },
  }
}
