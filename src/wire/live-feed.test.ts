import assert from 'node:assert/strict'
import { test } from 'node:test'
import { errorMessage, eventMessage, readServerMessage, readSseSettlement, sseFrame, subscribedMessage, subscriptionOf, unsubscribedMessage } from './live-feed.js'

const json = '{"blockNumber":7,"logIndex":2}'

test('what the explorer writes, a client reads back with the same fields and the same subscription', () => {
  assert.deepEqual(readServerMessage(eventMessage('SETTLEMENT', json, 'c7', 's1')), { type: 'SETTLEMENT', data: { blockNumber: 7, logIndex: 2 }, cursor: 'c7', subscription: 's1' })
  const removed = readServerMessage(eventMessage('REMOVED', json, 'c6', undefined))!
  assert.deepEqual(removed, { type: 'REMOVED', data: { blockNumber: 7, logIndex: 2 }, cursor: 'c6' })
  assert.equal(subscriptionOf(removed), undefined)
  const subscribed = readServerMessage(subscribedMessage('s2', { recipient: '0xab' }, undefined, 'c9'))!
  assert.deepEqual(subscribed, { type: 'SUBSCRIBED', channel: 'settlements', id: 's2', filter: { recipient: '0xab' }, cursor: 'c9' })
  assert.equal(subscriptionOf(subscribed), 's2')
  assert.deepEqual(readServerMessage(unsubscribedMessage(['s2', null])), { type: 'UNSUBSCRIBED', ids: ['s2', null] })
  const error = readServerMessage(errorMessage({ code: 'INVALID_ID', message: 'bad id' }, 's3'))!
  assert.deepEqual(error, { type: 'ERROR', error: { code: 'INVALID_ID', message: 'bad id' }, id: 's3' })
  assert.equal(subscriptionOf(error), 's3')
})

test('frames a client cannot use read as undefined, never as a throw', () => {
  for (const frame of [undefined, new ArrayBuffer(2), 'not json', '"text"', 'null', '{"type":"PING"}', '{"type":"SETTLEMENT","cursor":"c1"}']) {
    assert.equal(readServerMessage(frame), undefined, String(frame))
  }
  assert.equal(readServerMessage('{"type":"REMOVED","data":{}}'), undefined, 'a REMOVED without the cursor to resume from')
  assert.equal(readServerMessage('{"type":"ERROR","error":{"code":4}}'), undefined, 'an ERROR without a code and message')
})

test('an SSE frame carries the event name the page listens for, the cursor as its id, and the settlement as data', () => {
  const frame = sseFrame('REMOVED', json, 'c6')
  assert.equal(frame, `event: removed\nid: c6\ndata: ${json}\n\n`)
  const data = /^data: (.*)$/m.exec(frame)![1]
  assert.deepEqual(readSseSettlement(data), { blockNumber: 7, logIndex: 2 })
  assert.equal(readSseSettlement('{oops'), undefined)
})
