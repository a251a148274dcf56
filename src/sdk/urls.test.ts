import assert from 'node:assert/strict'
import { test } from 'node:test'
import { defaultWsUrl, endpointUrl, replicaUrls } from './urls.js'

test('the default WebSocket address swaps the scheme and appends /stream to any path prefix', () => {
  assert.equal(defaultWsUrl('http://127.0.0.1:4001'), 'ws://127.0.0.1:4001/stream')
  assert.equal(defaultWsUrl('https://example.com/explorer/'), 'wss://example.com/explorer/stream')
  assert.equal(defaultWsUrl('https://example.com/explorer?x=1'), 'wss://example.com/explorer/stream')
  assert.throws(() => defaultWsUrl('ftp://example.com'), TypeError)
})

test('endpoint addresses keep the prefix and drop undefined parameters', () => {
  assert.equal(endpointUrl('https://example.com/explorer/', '/events', { limit: 5, cursor: undefined, order: 'asc' }), 'https://example.com/explorer/events?limit=5&order=asc')
  assert.equal(endpointUrl('http://h:1', '/stats'), 'http://h:1/stats')
})

test('replicas: baseUrl then baseUrls, each once, each with its own WebSocket address; wsUrl only with one', () => {
  assert.deepEqual(replicaUrls({ baseUrl: 'http://a:1', baseUrls: ['http://b:2/x', 'http://a:1'] }), [
    { baseUrl: 'http://a:1', wsUrl: 'ws://a:1/stream' },
    { baseUrl: 'http://b:2/x', wsUrl: 'ws://b:2/x/stream' },
  ])
  assert.deepEqual(replicaUrls({ baseUrl: 'http://a:1', wsUrl: 'ws://elsewhere/feed' }), [{ baseUrl: 'http://a:1', wsUrl: 'ws://elsewhere/feed' }])
  assert.throws(() => replicaUrls({}), TypeError)
  assert.throws(() => replicaUrls({ baseUrls: ['http://a', 'http://b'], wsUrl: 'ws://a/stream' }), TypeError)
})
