/**
 * Test harness for the certificate authority: a real embedded PostgreSQL per test file, CAs started
 * in-process on free ports with their own data directories, and raw HTTP requests to the admin API.
 */
import { rmSync } from 'node:fs'
import { CaClient, loadAuthority, localAuthorityPaths, readLocalAdminToken, startCa, type CertificateAuthority, type RunningCa } from '../../processor/ca/index.js'
import { caOptionsFromEnv } from '../../config/index.js'
import { openDatabase, type Database } from '../../processor/db/index.js'
import { createLogger } from '../../platform/observability/index.js'
import { testDatabase } from '../test-database/index.js'
import { tempDir } from './temp-dir.js'

export const log = createLogger('silent')
export const tempCaDir = () => tempDir('ca-test-')

export interface TestCa extends RunningCa {
  dataDir: string
  token: string
  client: CaClient
  /** The CA's key and certificate, read from its data directory, for issuing outside the API. */
  authority(): Promise<CertificateAuthority>
  /** A request to the admin API with the token (unless `token` is given, '' for none). */
  request(method: string, path: string, init?: { body?: string; contentType?: string; token?: string }): Promise<{ status: number; body: any; headers: Headers }>
}

export async function startTestCa(db: Database, env: Record<string, string> = {}): Promise<TestCa> {
  const dataDir = env.CA_DATA_DIR ?? tempCaDir()
  const ca = await startCa(caOptionsFromEnv({ CA_PORT: '0', CA_DATA_DIR: dataDir, LOG_LEVEL: 'silent', ...env }), { db, log })
  const token = env.CA_ADMIN_TOKEN ?? readLocalAdminToken(dataDir)!
  return {
    ...ca,
    async stop() {
      await ca.stop()
      if (!env.CA_DATA_DIR) rmSync(dataDir, { recursive: true, force: true })
    },
    dataDir,
    token,
    client: new CaClient({ url: ca.url, token }),
    authority() {
      const local = localAuthorityPaths(dataDir)
      const paths = { certPath: env.CA_CERT_PATH ?? local.certPath, keyPath: env.CA_KEY_PATH ?? local.keyPath }
      return loadAuthority({ ...paths, certSetting: 'CA_CERT_PATH', keySetting: 'CA_KEY_PATH' })
    },
    async request(method, path, init = {}) {
      const headers: Record<string, string> = {}
      const bearer = init.token ?? token
      if (bearer) headers.authorization = `Bearer ${bearer}`
      if (init.contentType ?? init.body) headers['content-type'] = init.contentType ?? 'application/json'
      const response = await fetch(ca.url + path, { method, headers, body: init.body })
      const text = await response.text()
      const json = response.headers.get('content-type')?.includes('json')
      return { status: response.status, body: json && text ? JSON.parse(text) : text, headers: response.headers }
    },
  }
}

/** A test file's embedded PostgreSQL and a CA on it; `stop` stops both. */
export async function startDatabaseAndCa(): Promise<{ db: Database; ca: TestCa; stop(): Promise<void> }> {
  const db = await openDatabase(await testDatabase(), log)
  const ca = await startTestCa(db)
  return {
    db,
    ca,
    async stop() {
      await ca.stop()
      await db.close()
    },
  }
}
