/**
 * Whether the database answers now, for the `/ready` of every piece whose work needs it: undefined when
 * it does, else one sentence saying it does not. A bounded wait, so a probe never hangs on a pool
 * waiting for a server that is gone.
 */
import type { Sql } from './open-database.js'

const PROBE_TIMEOUT_MS = 2_000

export async function databaseUnavailable(sql: Sql): Promise<string | undefined> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`the database does not answer within ${PROBE_TIMEOUT_MS} ms`), PROBE_TIMEOUT_MS)
  })
  const probe = sql.query('SELECT 1').then(
    () => undefined,
    (error: Error) => `the database does not answer (${error.message.split('\n')[0]})`,
  )
  try {
    return await Promise.race([probe, timeout])
  } finally {
    clearTimeout(timer)
  }
}
