import assert from 'node:assert/strict'
import { test } from 'node:test'
import { SharedConnections, sharedConnectionsMemory } from './shared-connections.js'

test('two views of one memory hold one count: the per-address cap and the total hold across them', () => {
  const memory = sharedConnectionsMemory()
  const [one, two] = [new SharedConnections(memory, 10, 3), new SharedConnections(memory, 10, 3)]
  one.add('10.0.0.1')
  two.add('10.0.0.1')
  assert.equal(one.refusal('10.0.0.1'), undefined)
  one.add('10.0.0.1')
  assert.equal(two.refusal('10.0.0.1'), 'address')
  assert.equal(two.refusal('10.0.0.2'), undefined)
  two.remove('10.0.0.1')
  assert.equal(one.refusal('10.0.0.1'), undefined)
  for (let i = 0; i < 8; i++) two.add(`192.168.0.${i}`)
  assert.equal(one.total, 10)
  assert.equal(one.refusal('172.16.0.1'), 'server')
})

test('1,000 addresses holding 20,000 connections: none refused below its cap of 21, each refused at it', () => {
  const connections = new SharedConnections(sharedConnectionsMemory(), 1_000_000, 21)
  const addresses = Array.from({ length: 1000 }, (_, i) => `10.${i >> 8}.${i & 255}.7`)
  for (const address of addresses) for (let k = 0; k < 20; k++) connections.add(address)
  assert.deepEqual(addresses.filter((address) => connections.refusal(address) !== undefined), [])
  for (const address of addresses) connections.add(address)
  assert.deepEqual(addresses.filter((address) => connections.refusal(address) !== 'address'), [])
})
