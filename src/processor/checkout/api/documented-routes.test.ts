import assert from 'node:assert/strict'
import { test } from 'node:test'
import Fastify from 'fastify'
import { documentedOperations, requireDocumentedRoutes } from './documented-routes.js'

const document = { paths: { '/api/v1/charges': { post: {}, get: {} }, '/api/v1/charges/{id}': { get: {} } } }

async function appWith(routes: (app: ReturnType<typeof Fastify>) => void) {
  const app = Fastify({ logger: false })
  requireDocumentedRoutes(app, documentedOperations(document))
  routes(app)
  return app
}

test('an app serving exactly its documented operations starts (GET with its HEAD, path parameters in either form)', async () => {
  const app = await appWith((a) => {
    a.post('/api/v1/charges', async () => ({}))
    a.get('/api/v1/charges', async () => ({}))
    a.get('/api/v1/charges/:id', async () => ({}))
  })
  await app.ready()
  await app.close()
})

test('a route missing from the document, or an operation without a route, keeps the app from starting and is named', async () => {
  const extra = await appWith((a) => {
    a.post('/api/v1/charges', async () => ({}))
    a.get('/api/v1/charges', async () => ({}))
    a.get('/api/v1/charges/:id', async () => ({}))
    a.delete('/api/v1/charges/:id', async () => ({}))
  })
  await assert.rejects(async () => { await extra.ready() }, /DELETE \/api\/v1\/charges\/\{id\} is served but not in the OpenAPI document/)
  const missing = await appWith((a) => {
    a.post('/api/v1/charges', async () => ({}))
    a.get('/api/v1/charges', async () => ({}))
  })
  await assert.rejects(async () => { await missing.ready() }, /GET \/api\/v1\/charges\/\{id\} is in the OpenAPI document but not served/)
})
