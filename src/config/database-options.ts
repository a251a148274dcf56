/**
 * The processor's database settings (PROCESSOR.md §0): DATABASE_URL, or an embedded PostgreSQL under
 * `.data/postgres` when it is unset. REDIS_URL is accepted and ignored, with one notice.
 */
import { stringSetting, urlSetting, type Env } from './parse-env.js'

export interface DatabaseOptions {
  /** A managed server; when absent an embedded one is started in `embeddedDir`. */
  url?: string
  embeddedDir: string
  /** Keep the embedded server's data on stop. */
  persistent?: boolean
  poolSize?: number
}

export function databaseOptionsFromEnv(env: Env = process.env, notice: (line: string) => void = console.warn): DatabaseOptions {
  if (env.REDIS_URL?.trim()) notice('REDIS_URL is set but not used: queues and notifications live in PostgreSQL')
  const url = env.DATABASE_URL?.trim() ? urlSetting(env, 'DATABASE_URL', undefined, ['postgres:', 'postgresql:']) : undefined
  return { url, embeddedDir: stringSetting(env, 'EMBEDDED_POSTGRES_DIR', '.data/postgres'), persistent: true }
}
