/**
 * The processor's one database layer: a `pg` pool on DATABASE_URL (or on an embedded server when it is
 * unset), the schema migrated, transactions, and LISTEN/NOTIFY for cross-replica signals. Every
 * processor piece opens it the same way; none keeps state of its own elsewhere.
 */
import pg from 'pg'
import type { DatabaseOptions } from '../../config/index.js'
import { ConfigError } from '../../config/index.js'
import type { Logger } from '../../platform/observability/index.js'
import { startEmbeddedPostgres, type EmbeddedDatabase } from './embedded-postgres.js'
import { createListener, type Listener } from './listener.js'
import { migrate } from './migrate.js'

export type Sql = pg.Pool | pg.PoolClient

export interface Database {
  pool: pg.Pool
  url: string
  /** Runs `work` in one transaction (BEGIN … COMMIT, ROLLBACK on a throw). */
  transaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T>
  /** A dedicated connection that LISTENs on `channels` and reconnects on its own. */
  listen(channels: string[], onNotify: (channel: string, payload: string) => void, onReconnect?: () => void): Promise<Listener>
  close(): Promise<void>
}

export async function openDatabase(opts: DatabaseOptions, log: Logger): Promise<Database> {
  let embedded: EmbeddedDatabase | undefined
  let url = opts.url
  if (!url) {
    embedded = await startEmbeddedPostgres({ dataDir: opts.embeddedDir, persistent: opts.persistent })
    url = embedded.url
    log.info('embedded PostgreSQL started', { dataDir: opts.embeddedDir })
  } else {
    await checkReachable(url)
  }
  try {
    await migrate(url)
  } catch (error) {
    await embedded?.stop()
    throw new ConfigError(`DATABASE_URL: migrations failed on ${redact(url)}: ${(error as Error).message}`, { cause: error })
  }
  const pool = new pg.Pool({ connectionString: url, max: opts.poolSize ?? 10 })
  // An idle client losing its server must not crash the process; the next query reconnects.
  let closing = false
  // pool.end() resolves before the server has seen every socket close, so stopping the embedded server
  // right after terminates some of them: expected then, and not worth a warning.
  pool.on('error', (error) => closing || log.warn('database connection lost', { error }))
  const listeners = new Set<Listener>()
  const databaseUrl = url

  return {
    pool,
    url,
    async transaction(work) {
      const client = await pool.connect()
      try {
        return await runTransaction(client, work)
      } finally {
        client.release()
      }
    },
    async listen(channels, onNotify, onReconnect) {
      const listener = await createListener({ url: databaseUrl, channels, onNotify, onReconnect, log })
      listeners.add(listener)
      return listener
    },
    async close() {
      closing = true
      for (const listener of listeners) await listener.close()
      await pool.end()
      await embedded?.stop()
    },
  }
}

/** Runs `work` in one transaction on a connection the caller holds (BEGIN … COMMIT, ROLLBACK on a throw). */
export async function runTransaction<T>(client: pg.PoolClient, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  await client.query('BEGIN')
  try {
    const result = await work(client)
    await client.query('COMMIT')
    return result
  } catch (error) {
    await client.query('ROLLBACK').catch(() => {})
    throw error
  }
}

async function checkReachable(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5_000 })
  try {
    await client.connect()
    await client.query('SELECT 1')
  } catch (error) {
    throw new ConfigError(`DATABASE_URL: cannot connect to ${redact(url)}: ${(error as Error).message || String(error)}`, { cause: error })
  } finally {
    await client.end().catch(() => {})
  }
}

/** A connection string without its password, for messages. */
export function redact(url: string): string {
  try {
    const parsed = new URL(url)
    if (parsed.password) parsed.password = '***'
    return parsed.toString()
  } catch {
    return '(unparseable URL)'
  }
}
