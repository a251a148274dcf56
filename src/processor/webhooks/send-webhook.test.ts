/**
 * A webhook attempt to an endpoint that never answers ends at its timeout, also when the garbage
 * collector runs while it waits. On Node 20 the timeout signal of `AbortSignal.any([stop,
 * AbortSignal.timeout(ms)])` is only weakly held (nodejs/node#57736): collected, it never fired, the
 * attempt held its slot until the worker stopped, and the timed-out attempt was never recorded.
 */
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import { test } from 'node:test'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { sendWebhook } from './send-webhook.js'
import { webhookDispatcher } from './webhook-target.js'

setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void

test('a request to an endpoint that never answers times out although a garbage collection ran meanwhile', async () => {
  const hanging: IncomingMessage[] = []
  const server = createServer((req) => void hanging.push(req)).listen(0, '127.0.0.1')
  await once(server, 'listening')
  const dispatcher = webhookDispatcher(true)
  const stop = new AbortController()
  try {
    const attempt = sendWebhook({
      url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhooks`,
      headers: { 'content-type': 'application/json' },
      body: '{}',
      timeoutMs: 300,
      signal: stop.signal,
      dispatcher,
      refuseInternal: false,
    })
    for (let i = 0; i < 3; i++) {
      await new Promise((resolve) => setTimeout(resolve, 20))
      gc()
    }
    let bound: NodeJS.Timeout | undefined
    const outcome = await Promise.race([attempt, new Promise<never>((_, reject) => (bound = setTimeout(() => reject(new Error('the attempt did not end within 5 s')), 5_000)))])
    clearTimeout(bound)
    assert.equal(outcome.error, 'timed out after 300 ms')
    assert.equal(hanging.length, 1)
  } finally {
    stop.abort()
    server.closeAllConnections()
    server.close()
    await dispatcher.close()
  }
})
