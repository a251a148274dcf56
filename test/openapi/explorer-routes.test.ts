/**
 * The explorer's routes and its OpenAPI document come from one table: every route registerApi puts on a
 * real uWS app is a path of the document and every path of the document is registered (the page's
 * files and the fallbacks aside), and the guard refuses a route outside the table or one left out.
 */
import assert from 'node:assert/strict'
import { rmSync } from 'node:fs'
import { test } from 'node:test'
import uWS, { type TemplatedApp } from 'uWebSockets.js'
import { explorerOptionsFromEnv } from '../../src/config/index.js'
import { createLogger, Metrics } from '../../src/platform/observability/index.js'
import { openStore } from '../../src/explorer/store/index.js'
import { createQueryExecutor } from '../../src/explorer/query/index.js'
import { registerApi } from '../../src/explorer/api/register-api.js'
import { documentedApp, UndocumentedRoute } from '../../src/explorer/api/rest/documented-app.js'
import { ENDPOINTS } from '../../src/explorer/api/rest/explorer-routes.js'
import { explorerOpenApi } from '../../src/explorer/api/rest/openapi.js'
import { tempDataDir } from '../../src/devnet/testing/index.js'

/** Every pattern registered on `app`, as `METHOD /pattern`. */
function recording(app: TemplatedApp, registered: string[]): TemplatedApp {
  return new Proxy(app, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property) as unknown
      if (typeof value !== 'function') return value
      if (!['get', 'ws', 'any', 'options', 'post'].includes(String(property))) return value.bind(target)
      return (pattern: string, handler: unknown) => {
        registered.push(`${String(property).toUpperCase()} ${pattern}`)
        value.call(target, pattern, handler)
        return receiver
      }
    },
  })
}

test('every route registerApi serves is a path of the document, and every path is served', async () => {
  const dataDir = tempDataDir()
  const store = openStore({ path: dataDir, noSync: true })
  const executor = createQueryExecutor({ store, dataDir, workers: 0 })
  try {
    const options = explorerOptionsFromEnv({ SETTLEMENT_CONTRACT: '0x5e771e0000000000000000000000000000000013', RPC_URL: 'http://127.0.0.1:9', DATA_DIR: dataDir, LOG_LEVEL: 'error' })
    const registered: string[] = []
    const api = registerApi(recording(uWS.App(), registered), { options, store, executor, indexer: { status: () => ({ chainHead: undefined, indexedBlock: -1, lag: undefined, lastError: undefined }) }, metrics: new Metrics(), logger: createLogger('error'), version: '0.0.0' })
    api.live.close()
    // Not operations: the web page's files (named in the root's description) and the 404/405/CORS fallbacks.
    const operations = registered.filter((endpoint) => !['GET /assets/*', 'OPTIONS /*', 'ANY /*'].includes(endpoint))
    const documented = Object.keys(explorerOpenApi('0.0.0').paths)
    const asDocumented = (endpoint: string) => endpoint.replace(/^\S+ /, '').replace(/:(\w+)/g, '{$1}')
    assert.deepEqual(operations.map(asDocumented).sort(), [...documented].sort())
    assert.deepEqual([...operations].sort(), [...ENDPOINTS].sort())
  } finally {
    await executor.close()
    await store.close()
    rmSync(dataDir, { recursive: true, force: true })
  }
})

test('a route outside the table cannot be registered, and a table route left out fails the start', () => {
  const documented = documentedApp(uWS.App())
  assert.throws(() => documented.app.get('/events/latest', () => {}), UndocumentedRoute)
  assert.throws(() => documented.app.any('/stats', () => {}), UndocumentedRoute)
  for (const endpoint of ENDPOINTS.filter((e) => e !== 'GET /metrics')) {
    const [method, pattern] = endpoint.split(' ') as [string, string]
    if (method === 'WS') documented.app.ws(pattern, {})
    else documented.app.get(pattern, () => {})
  }
  assert.throws(() => documented.assertServed(), (error: Error) => error instanceof UndocumentedRoute && error.message.includes('GET /metrics'))
  assert.throws(() => documented.app.get('/health', () => {}), /registered twice/)
  documented.app.get('/metrics', () => {})
  documented.assertServed()
})
