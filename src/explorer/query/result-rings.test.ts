import assert from 'node:assert/strict'
import { test } from 'node:test'
import { createResultRings, RingWriter, SLOT_BYTES, SLOTS, type RingAnswer } from './result-rings.js'

const page = (n: number, bytes = 11_000) => Buffer.alloc(bytes, n % 251)

test('pages go through the ring slots and come back equal; nothing stays undefined', () => {
  const rings = createResultRings(1)
  const writer = new RingWriter(rings.data)
  for (let i = 0; i < 3 * SLOTS; i++) {
    const answer = writer.answer(page(i))
    assert.ok(answer !== undefined && !(answer instanceof Uint8Array), 'a free slot is used')
    assert.deepEqual(rings.take(answer), page(i))
  }
  assert.equal(rings.take(writer.answer(undefined)), undefined)
})

test('a slot still held is never overwritten: the page is posted instead; a page larger than a slot too', () => {
  const rings = createResultRings(1)
  const writer = new RingWriter(rings.data)
  const held = Array.from({ length: SLOTS }, (_, i) => writer.answer(page(i)))
  const extra = writer.answer(page(1000))
  assert.ok(extra instanceof Uint8Array)
  assert.deepEqual(Buffer.from(extra), page(1000))
  held.forEach((answer, i) => assert.deepEqual(rings.take(answer), page(i), `slot ${i} kept its page`))
  const large = writer.answer(page(7, SLOT_BYTES + 1))
  assert.ok(large instanceof Uint8Array)
  assert.equal(large.length, SLOT_BYTES + 1)
})

test('each worker claims its own ring', () => {
  const rings = createResultRings(2)
  const [a, b] = [new RingWriter(rings.data), new RingWriter(rings.data)]
  const fromA = a.answer(page(1)) as Exclude<RingAnswer, Uint8Array | undefined>
  const fromB = b.answer(page(2)) as Exclude<RingAnswer, Uint8Array | undefined>
  assert.notEqual(fromA.ring, fromB.ring)
  assert.deepEqual(rings.take(fromB), page(2))
  assert.deepEqual(rings.take(fromA), page(1))
})

test('two writers on one ring (a replacement worker) never write the same slot', () => {
  const rings = createResultRings(1)
  const [a, b] = [new RingWriter(rings.data), new RingWriter(rings.data)]
  const answers = Array.from({ length: SLOTS }, (_, i) => [a.answer(page(2 * i)), b.answer(page(2 * i + 1))])
  answers.forEach(([x, y], i) => {
    assert.deepEqual(Buffer.from(rings.take(x)!), page(2 * i))
    assert.deepEqual(Buffer.from(rings.take(y)!), page(2 * i + 1))
  })
})
