/** docs/api-reference.md is what `npm run docs:api` renders from the OpenAPI documents the servers serve. */
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { test } from 'node:test'
import { apiReference } from '../../scripts/docs/api-reference-documents.js'

test('the API reference in docs/ matches the servers\' OpenAPI documents (npm run docs:api renders it)', () => {
  const committed = readFileSync(new URL('../../docs/api-reference.md', import.meta.url), 'utf8')
  const rendered = apiReference()
  assert.ok(rendered.includes('### `GET /events`') && rendered.includes('### `POST /api/v1/charges`'), 'both documents are rendered')
  assert.equal(committed, rendered, 'docs/api-reference.md is out of date: run npm run docs:api')
})
