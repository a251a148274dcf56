import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createWatchers } from '../../platform/html/index.js'
import { createLogger, Metrics } from '../../platform/observability/index.js'
import { sharedStatus } from './shared-status.js'

/** Notices as the LISTEN connection gives them, and a read the test answers by hand. */
function world() {
  const watchers = createWatchers()
  const watch = { watch: watchers.watch, close: async () => {} }
  const pending: ((status: object | undefined) => void)[] = []
  let failNext = false
  const read = () =>
    new Promise<object | undefined>((resolve, reject) => {
      if (failNext) return reject(new Error('connection lost'))
      pending.push(resolve)
    })
  const shared = sharedStatus(watch, createLogger('silent'), new Metrics('widget'))
  const answer = async (status: object | undefined) => {
    pending.shift()!(status)
    await new Promise((resolve) => setImmediate(resolve))
  }
  return { watchers, shared, read, pending, answer, fail: () => (failNext = true) }
}

test('followers of one id share its reads: one at the start, one per notice, one more for notices during a read', async () => {
  const { watchers, shared, read, pending, answer } = world()
  const heard: string[][] = [[], [], []]
  const first = shared.follow('ch_1', read, (s) => heard[0]!.push(JSON.stringify(s)))
  const second = shared.follow('ch_1', read, (s) => heard[1]!.push(JSON.stringify(s)))
  assert.equal(pending.length, 1, 'two followers arriving together: one read')
  await answer({ status: 'awaiting-payment' })
  const [stopFirst] = [await first, await second]
  await shared.follow('ch_1', read, (s) => heard[2]!.push(JSON.stringify(s)))
  assert.equal(pending.length, 0, 'a later follower gets the last status read')

  watchers.notify('ch_1')
  watchers.notify('ch_1')
  assert.equal(pending.length, 1)
  watchers.notify('ch_1')
  await answer({ status: 'confirming' })
  assert.equal(pending.length, 1, 'notices during a read: one more read after it')
  await answer({ status: 'confirming' })
  assert.equal(pending.length, 0)
  for (const followed of heard) assert.deepEqual(followed, ['{"status":"awaiting-payment"}', '{"status":"confirming"}'], 'each status once, in order')

  assert.equal(typeof stopFirst, 'function')
  ;(stopFirst as () => void)()
  assert.equal(shared.size, 1)
})

test('an unknown id is refused and forgotten; an unreadable one says so', async () => {
  const { shared, read, answer, fail } = world()
  const unknown = shared.follow('ch_2', read, () => {})
  await answer(undefined)
  assert.equal(await unknown, 'unknown')
  assert.equal(shared.size, 0)
  fail()
  assert.equal(await shared.follow('ch_3', read, () => {}), 'unreadable')
  assert.equal(shared.size, 0)
})
