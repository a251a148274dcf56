import assert from 'node:assert/strict'
import { test } from 'node:test'
import { prefersHtml } from './prefers-html.js'

test('browsers get the page; curl, the SDK and everyone else the API root', () => {
  const browsers = [
    'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8',
    'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8',
    'text/html',
    'application/json;q=0.5, text/html',
  ]
  for (const accept of browsers) assert.equal(prefersHtml(accept), true, accept)
  const apiClients = ['', '*/*', 'application/json', 'text/*', 'text/html, application/json', 'application/json, text/html;q=0.9', 'text/html;q=0', 'text/html;q=0.5, */*']
  for (const accept of apiClients) assert.equal(prefersHtml(accept), false, accept)
})
