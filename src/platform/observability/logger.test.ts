import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createLogger } from './logger.js'

const SECRET_URL = 'https://user:pw@eth.example:8545/v2/SECRET?key=SECRET'

function linesOf(log: (logger: ReturnType<typeof createLogger>) => void): string[] {
  const lines: string[] = []
  log(createLogger('debug', { rpc: SECRET_URL }, (line) => lines.push(line) > 0))
  return lines
}

test('no URL secret reaches a line: message, base and child fields, nested fields, arrays', () => {
  const [line] = linesOf((log) => log.child({ upstream: `node at ${SECRET_URL}` }).warn(`failed: URL: ${SECRET_URL}`, { nested: { urls: [SECRET_URL] } }))
  assert.doesNotMatch(line!, /SECRET|pw@/)
  const entry = JSON.parse(line!)
  assert.equal(entry.msg, 'failed: URL: https://eth.example:8545/…')
  assert.equal(entry.rpc, 'https://eth.example:8545/…')
  assert.equal(entry.upstream, 'node at https://eth.example:8545/…')
  assert.deepEqual(entry.nested, { urls: ['https://eth.example:8545/…'] })
})

test('an error logged whole shows its name, message, stack, own fields and causes, all redacted', () => {
  const root = new Error(`connect ECONNREFUSED ${SECRET_URL}`)
  const error = Object.assign(new Error(`HTTP request failed.\n\nURL: ${SECRET_URL}`, { cause: root }), { url: SECRET_URL, status: 503 })
  const [line] = linesOf((log) => log.error('node failed', { error }))
  assert.doesNotMatch(line!, /SECRET|pw@/)
  const logged = JSON.parse(line!).error
  assert.equal(logged.name, 'Error')
  assert.equal(logged.message, 'HTTP request failed.\n\nURL: https://eth.example:8545/…')
  assert.match(logged.stack, /^Error: HTTP request failed\./)
  assert.equal(logged.url, 'https://eth.example:8545/…')
  assert.equal(logged.status, 503)
  assert.equal(logged.cause.message, 'connect ECONNREFUSED https://eth.example:8545/…')
})

test('bigints are written as decimals, and a cause chain that loops ends', () => {
  const a = new Error('a')
  const b = new Error('b', { cause: a })
  ;(a as { cause?: unknown }).cause = b
  const [line] = linesOf((log) => log.info('amount', { amount: 10n ** 30n, error: a }))
  const entry = JSON.parse(line!)
  assert.equal(entry.amount, '1000000000000000000000000000000')
  assert.equal(entry.error.cause.message, 'b')
})
