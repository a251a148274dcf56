/**
 * Whether an embedded PostgreSQL already runs on a data directory (its `postmaster.pid` names a live
 * process), and the DATABASE_URL that reaches it. A second server cannot start on the same directory, and
 * PostgreSQL's own refusal reached users as "did not start … (port taken?)", blaming the wrong thing; the
 * usual cause is `npm start` running while a piece or `npm run admin` is started without DATABASE_URL.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { ConfigError } from '../../config/index.js'

export interface RunningServer {
  pid: number
  url: string
}

/** The live server on `dataDir`, or undefined (no pid file, or one a crashed server left behind). */
export function runningEmbeddedServer(dataDir: string, user: string, password: string): RunningServer | undefined {
  let lines: string[]
  try {
    lines = readFileSync(join(dataDir, 'postmaster.pid'), 'utf8').split('\n')
  } catch {
    return undefined
  }
  const pid = Number(lines[0])
  const port = Number(lines[3])
  if (!Number.isInteger(pid) || pid <= 0 || !Number.isInteger(port)) return undefined
  try {
    process.kill(pid, 0)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return undefined
  }
  return { pid, url: `postgres://${user}:${password}@127.0.0.1:${port}/postgres` }
}

export const embeddedServerRunningError = (dataDir: string, running: RunningServer) =>
  new ConfigError(
    `an embedded PostgreSQL is already running on ${dataDir} (pid ${running.pid}; the stack of \`npm start\` or \`npm run db\`?). ` +
      `Use that one: set DATABASE_URL=${running.url} (printed at its start), or stop it first.`,
  )
