import assert from 'node:assert/strict'
import { test } from 'node:test'
import { addressGroup } from './client-address.js'

test('IPv6 addresses of one /64 share a key, IPv4 (mapped or not) keeps its own', () => {
  assert.equal(addressGroup('2001:db8:1:2:aaaa::1'), '2001:db8:1:2::/64')
  assert.equal(addressGroup('2001:0db8:0001:0002:ffff:ffff:ffff:ffff'), '2001:db8:1:2::/64')
  assert.equal(addressGroup('2001:db8::1'), '2001:db8:0:0::/64')
  assert.notEqual(addressGroup('2001:db8:1:3::1'), addressGroup('2001:db8:1:2::1'))
  assert.equal(addressGroup('::1'), '0:0:0:0::/64')
  assert.equal(addressGroup('fe80::1%eth0'), 'fe80:0:0:0::/64')
  assert.equal(addressGroup('::ffff:127.0.0.5'), '127.0.0.5')
  assert.equal(addressGroup('203.0.113.9'), '203.0.113.9')
})
