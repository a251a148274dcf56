import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { trustedProxiesSetting } from '../../config/index.js'
import { clientAddress } from './client-address.js'
import { addressKey, parseIp, parseIpRange } from './ip-address.js'

const PROXIES = trustedProxiesSetting({ TRUSTED_PROXIES: '10.0.0.0/8, 192.168.1.1 2001:db8:ffff::/48' })

describe('clientAddress', () => {
  test('with no trusted proxy the socket peer is the client and X-Forwarded-For is never read', () => {
    assert.equal(clientAddress('203.0.113.9', '198.51.100.1', []), '203.0.113.9')
    assert.equal(clientAddress('203.0.113.9', undefined, PROXIES), '203.0.113.9')
  })

  test('a spoofed X-Forwarded-For from an untrusted peer is ignored', () => {
    assert.equal(clientAddress('203.0.113.9', '198.51.100.1', PROXIES), '203.0.113.9')
    assert.equal(clientAddress('203.0.113.9', '10.0.0.1', PROXIES), '203.0.113.9')
  })

  test('behind a trusted proxy the entry it appended is the client; entries left of it (the client\'s own) are not read', () => {
    assert.equal(clientAddress('10.1.2.3', '198.51.100.1', PROXIES), '198.51.100.1')
    assert.equal(clientAddress('10.1.2.3', '1.1.1.1, 7.7.7.7, 198.51.100.1', PROXIES), '198.51.100.1')
  })

  test('a chain of trusted proxies is walked from the right to the first address that is not one', () => {
    assert.equal(clientAddress('10.1.2.3', '198.51.100.1, 192.168.1.1, 10.9.9.9', PROXIES), '198.51.100.1')
    // A trusted-looking address left of an untrusted one was written by that client: the walk stops before it.
    assert.equal(clientAddress('10.1.2.3', '10.5.5.5, 203.0.113.7, 10.9.9.9', PROXIES), '203.0.113.7')
    // Every hop trusted (a request from the proxies themselves): the leftmost of them.
    assert.equal(clientAddress('10.1.2.3', '10.0.0.7, 192.168.1.1', PROXIES), '10.0.0.7')
  })

  test('a malformed entry ends the walk at the trusted hop that passed it on', () => {
    for (const header of ['unknown', 'garbage, 198.51.100.1, not-an-ip', '', ' , ', '1.2.3.256', '999.1.1.1', '01.2.3.4', '_hidden', '1.2.3.4/24', '[::1', '::1]']) {
      assert.equal(clientAddress('10.1.2.3', header, PROXIES), '10.1.2.3', `X-Forwarded-For: ${header}`)
    }
    assert.equal(clientAddress('10.1.2.3', 'garbage, 198.51.100.1', PROXIES), '198.51.100.1')
  })

  test('entries with ports, brackets and spaces are read', () => {
    assert.equal(clientAddress('10.1.2.3', ' 198.51.100.1:5678 ', PROXIES), '198.51.100.1')
    assert.equal(clientAddress('10.1.2.3', '[2001:db8:1:2::5]:443', PROXIES), '2001:db8:1:2::/64')
    assert.equal(clientAddress('10.1.2.3', '2001:db8:1:2::5', PROXIES), '2001:db8:1:2::/64')
  })

  test('IPv6 clients are grouped by /64; IPv4-mapped IPv6 is IPv4', () => {
    const a = clientAddress('2001:db8:aa:bb:1111:2222:3333:4444', undefined, PROXIES)
    const b = clientAddress('2001:0db8:00aa:00bb:ffff:0:0:1', undefined, PROXIES)
    assert.equal(a, '2001:db8:aa:bb::/64')
    assert.equal(a, b)
    assert.notEqual(a, clientAddress('2001:db8:aa:bc::1', undefined, PROXIES))
    // uWS writes every address in full, an IPv4 client of a dual-stack socket mapped.
    assert.equal(clientAddress('0000:0000:0000:0000:0000:ffff:7f00:0001', undefined, []), '127.0.0.1')
    assert.equal(clientAddress('::ffff:198.51.100.1', undefined, []), '198.51.100.1')
    assert.equal(clientAddress('0000:0000:0000:0000:0000:0000:0000:0001', undefined, []), '0:0:0:0::/64')
  })

  test('a trusted proxy is recognised in any form of its address, and IPv6 proxies by range', () => {
    assert.equal(clientAddress('::ffff:10.0.0.1', '198.51.100.1', PROXIES), '198.51.100.1')
    assert.equal(clientAddress('0000:0000:0000:0000:0000:ffff:c0a8:0101', '198.51.100.1', PROXIES), '198.51.100.1')
    assert.equal(clientAddress('2001:db8:ffff:1::9', '198.51.100.1', PROXIES), '198.51.100.1')
    assert.equal(clientAddress('2001:db8:fffe::9', '198.51.100.1', PROXIES), '2001:db8:fffe:0::/64')
    assert.equal(clientAddress('192.168.1.2', '198.51.100.1', PROXIES), '192.168.1.2')
  })

  test('an unreadable peer is its own key', () => {
    assert.equal(clientAddress('', '198.51.100.1', PROXIES), '')
  })
})

describe('addresses and ranges', () => {
  test('IPv6 text in its forms, with an embedded IPv4 tail and a zone', () => {
    const key = (text: string) => addressKey(parseIp(text)!)
    assert.equal(key('::'), '0:0:0:0::/64')
    assert.equal(key('1:2:3:4:5:6:7::'), '1:2:3:4::/64')
    assert.equal(key('fe80::1%eth0'), 'fe80:0:0:0::/64')
    assert.equal(key('64:ff9b::192.0.2.33'), '64:ff9b:0:0::/64')
    for (const bad of ['1:2:3:4:5:6:7:8:9', '1::2::3', '12345::', 'g::1', '1:2:3:4:5:6:7', '::1.2.3', ':::']) assert.equal(parseIp(bad), undefined, bad)
  })

  test('every entry TRUSTED_PROXIES accepts is a range the client address reads', () => {
    const entries = ['0.0.0.0/0', '127.0.0.1', '10.0.0.0/8', '::/0', '::1', '::ffff:10.0.0.1', '2001:db8::/32', 'fe80::1:2:3:4/128', '1:2:3:4:5:6:7::']
    assert.deepEqual(trustedProxiesSetting({ TRUSTED_PROXIES: entries.join(',') }), entries)
    for (const entry of entries) assert.ok(parseIpRange(entry), entry)
  })

  test('TRUSTED_PROXIES refuses what is not an address or range, naming the entry', () => {
    for (const bad of ['proxy.example', '10.0.0.0/33', '::/129', '10.0.0.1/8/8', '10.0.0.0/-1', 'fe80::1%eth0', '01.2.3.4']) {
      assert.throws(() => trustedProxiesSetting({ TRUSTED_PROXIES: `127.0.0.1, ${bad}` }), new RegExp(`TRUSTED_PROXIES .*"${bad.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}"`), bad)
    }
    assert.deepEqual(trustedProxiesSetting({}), [])
  })
})
