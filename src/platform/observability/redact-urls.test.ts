import assert from 'node:assert/strict'
import { test } from 'node:test'
import { redactUrls } from './redact-urls.js'

test('the path, query, fragment and userinfo of http(s) and ws(s) URLs are cut; scheme, host and port stay', () => {
  assert.equal(redactUrls('URL: https://eth-mainnet.example.com/v2/abc123KEY'), 'URL: https://eth-mainnet.example.com/…')
  assert.equal(redactUrls('http://127.0.0.1:8545/?apikey=SECRET#frag'), 'http://127.0.0.1:8545/…')
  assert.equal(redactUrls('wss://user:p@ss@node.example:443/ws/KEY'), 'wss://node.example:443/…')
  assert.equal(redactUrls('WS://[::1]:8546?token=SECRET'), 'WS://[::1]:8546/…')
  assert.equal(redactUrls('https://user:SECRET@node.example'), 'https://node.example')
})

test('URLs without secrets and text without URLs are left alone', () => {
  assert.equal(redactUrls('listening on http://127.0.0.1:4001'), 'listening on http://127.0.0.1:4001')
  assert.equal(redactUrls('http://127.0.0.1:4001/'), 'http://127.0.0.1:4001/')
  assert.equal(redactUrls('no url here: 1 / 2 ? 3'), 'no url here: 1 / 2 ? 3')
  assert.equal(redactUrls('ftp://host/path'), 'ftp://host/path')
})

test('every URL of a viem error message is cut, and the text around it stays', () => {
  const message = [
    'HTTP request failed.',
    '',
    'Status: 503',
    'URL: http://127.0.0.1:8545/v2/SECRET',
    'Request body: {"method":"eth_blockNumber","params":[]}',
    '',
    'Details: see https://docs.example/errors?key=SECRET2 and "https://x.example/SECRET3"',
    'Version: viem@2.0.0',
  ].join('\n')
  const redacted = redactUrls(message)
  assert.doesNotMatch(redacted, /SECRET/)
  assert.match(redacted, /^URL: http:\/\/127\.0\.0\.1:8545\/…$/m)
  assert.match(redacted, /Details: see https:\/\/docs\.example\/… and "https:\/\/x\.example\/…"/)
  assert.match(redacted, /Request body: \{"method":"eth_blockNumber","params":\[\]\}/)
})

test('a URL inside escaped JSON ends at the escaped quote', () => {
  assert.equal(redactUrls('{\\"url\\":\\"https://node.example/KEY\\"}'), '{\\"url\\":\\"https://node.example/…\\"}')
})
