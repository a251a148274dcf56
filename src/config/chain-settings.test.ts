import assert from 'node:assert/strict'
import { test } from 'node:test'
import { chainSettingsFromEnv } from './chain-settings.js'

const contract = `0x${'11'.repeat(20)}`
const settings = (env: Record<string, string>) => chainSettingsFromEnv({ CHAIN_ID: '8453', SETTLEMENT_CONTRACT: contract, ...env })

test('RPC_URL: one URL as before, or several comma-separated, the first preferred and the rest in order', () => {
  assert.deepEqual(settings({ RPC_URL: 'https://a.example/v2/key' }), {
    chainId: 8453,
    rpcUrl: 'https://a.example/v2/key',
    fallbackRpcUrls: [],
    rpcStallMs: 30_000,
    contract,
    startBlock: 0,
  })
  const several = settings({ RPC_URL: ' https://a.example/v2/key , http://10.0.0.2:8545,https://c.example?apikey=x ' })
  assert.equal(several.rpcUrl, 'https://a.example/v2/key')
  assert.deepEqual(several.fallbackRpcUrls, ['http://10.0.0.2:8545', 'https://c.example?apikey=x'])
})

test("RPC_URL: each entry is checked as a URL; the error names the entry's place and at most its host, never its key", () => {
  const refused = (value: string, message: RegExp) => {
    const error = (() => {
      try {
        settings({ RPC_URL: value })
      } catch (error) {
        return error as Error
      }
      assert.fail(`${value} was accepted`)
    })()
    assert.equal(error.name, 'ConfigError')
    assert.match(error.message, message)
    assert.doesNotMatch(error.message, /secret/)
  }
  refused('https://a.example/secret,not a url/secret', /^RPC_URL's entry 2 must be a URL \(http: or https:; the value is not shown/)
  refused('https://a.example/secret,ws://b.example/secret', /^RPC_URL's entry 2 must use http: or https:, got ws: \(b\.example\)$/)
  refused('https://a.example/secret,,https://b.example/secret', /^RPC_URL's entry 2 is empty/)
  refused('https://a.example/secret,', /^RPC_URL's entry 2 is empty/)
  refused('https://a.example/secret,https://a.example/secret', /^RPC_URL's entry 2 repeats an earlier one \(a\.example\)$/)
  refused('ftp://a.example/secret', /^RPC_URL must use http: or https:, got ftp: \(a\.example\)$/)
})

test('RPC_STALL_SECONDS: 30 by default, 1..3600, held in milliseconds', () => {
  assert.equal(settings({ RPC_URL: 'http://a.example', RPC_STALL_SECONDS: '5' }).rpcStallMs, 5_000)
  for (const bad of ['0', '3601', '1.5', 'soon']) assert.throws(() => settings({ RPC_URL: 'http://a.example', RPC_STALL_SECONDS: bad }), /RPC_STALL_SECONDS/)
})

test("the devnet deployment's single rpcUrl still fills in a missing RPC_URL on chain 31337", () => {
  const deployment = { chainId: 31337, rpcUrl: 'http://127.0.0.1:9999', settlementContract: contract, startBlock: 7 } as never
  const local = chainSettingsFromEnv({ CHAIN_ID: '31337' }, deployment)
  assert.equal(local.rpcUrl, 'http://127.0.0.1:9999')
  assert.deepEqual(local.fallbackRpcUrls, [])
  assert.equal(local.startBlock, 7)
})
