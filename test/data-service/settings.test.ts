/** The data service's settings: defaults, the announced URLs, and one ConfigError line per bad value. */
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { test } from 'node:test'
import { dataServiceOptionsFromEnv } from '../../src/config/data-service-options.js'
import { ConfigError } from '../../src/config/parse-env.js'
import { startDataService } from '../../src/processor/data-service/index.js'
import { createLogger } from '../../src/platform/observability/logger.js'
import type { Deployment } from '../../src/wire/deployment.js'
import { scriptArgs } from '../../src/devnet/testing/index.js'

const contract = '0x5FbDB2315678afecb367f032d93F642f64180aa3'
const deployment: Deployment = {
  chainId: 31337,
  rpcUrl: 'http://127.0.0.1:9545',
  settlementContract: contract,
  startBlock: 7,
  feeRecipient: contract,
  tokens: [],
  payerKeys: [],
  recipients: [],
  acquirers: [],
}

test('defaults: port 4002 on 127.0.0.1, the devnet deployment on chain 31337, local URLs', () => {
  const options = dataServiceOptionsFromEnv({}, deployment)
  assert.equal(options.port, 4002)
  assert.equal(options.host, '127.0.0.1')
  assert.equal(options.chainId, 31337)
  assert.equal(options.contract, contract.toLowerCase())
  assert.equal(options.rpcUrl, 'http://127.0.0.1:9545')
  assert.equal(options.startBlock, 7)
  assert.deepEqual(options.urls, {
    walletGatewayUrl: 'ws://127.0.0.1:4000/ws',
    explorerUrl: 'http://127.0.0.1:4001',
    checkoutWidgetUrl: 'http://127.0.0.1:4004',
  })
})

test('the announced URLs follow GATEWAY_DOMAIN, the URL settings and the local ports', () => {
  const env = { SETTLEMENT_CONTRACT: contract }
  assert.deepEqual(dataServiceOptionsFromEnv({ ...env, GATEWAY_DOMAIN: 'Pay.Example.com', EXPLORER_URL: 'https://explorer.example.com/', CHECKOUT_WIDGET_URL: 'https://pay.example.com/checkout' }).urls, {
    walletGatewayUrl: 'wss://pay.example.com/ws',
    explorerUrl: 'https://explorer.example.com',
    checkoutWidgetUrl: 'https://pay.example.com/checkout',
  })
  assert.deepEqual(dataServiceOptionsFromEnv({ ...env, GATEWAY_PORT: '5000', EXPLORER_PORT: '5001', WIDGET_PORT: '5004' }).urls, {
    walletGatewayUrl: 'ws://127.0.0.1:5000/ws',
    explorerUrl: 'http://127.0.0.1:5001',
    checkoutWidgetUrl: 'http://127.0.0.1:5004',
  })
})

test('off chain 31337 the deployment is ignored: SETTLEMENT_CONTRACT is required', () => {
  assert.throws(() => dataServiceOptionsFromEnv({ CHAIN_ID: '8453' }, deployment), /^ConfigError: SETTLEMENT_CONTRACT is required/)
})

test('each bad setting is one ConfigError line naming the variable', () => {
  const cases: [Record<string, string>, RegExp][] = [
    [{ DATA_SERVICE_PORT: 'abc' }, /^DATA_SERVICE_PORT must be an integer 0\.\.65535, got "abc"$/],
    [{ DATA_SERVICE_PORT: '70000' }, /^DATA_SERVICE_PORT must be/],
    [{ POLL_INTERVAL_MS: '5' }, /^POLL_INTERVAL_MS must be an integer 10\.\./],
    [{ LOG_LEVEL: 'loud' }, /^LOG_LEVEL must be one of/],
    [{ RPC_URL: 'not a url' }, /^RPC_URL must be a URL/],
    [{ SETTLEMENT_CONTRACT: '0x1234' }, /^SETTLEMENT_CONTRACT must be a 0x-prefixed 20-byte address/],
    [{ START_BLOCK: '-1' }, /^START_BLOCK must be an integer/],
    [{ GATEWAY_DOMAIN: 'https://pay.example.com/ws' }, /^GATEWAY_DOMAIN must be a host name/],
    [{ GATEWAY_PORT: '0' }, /^GATEWAY_PORT must be an integer 1\.\.65535/],
    [{ EXPLORER_URL: 'ftp://explorer.example.com' }, /^EXPLORER_URL must use http: or https:/],
    [{ CHECKOUT_WIDGET_URL: 'widget' }, /^CHECKOUT_WIDGET_URL must be a URL/],
  ]
  for (const [env, message] of cases) {
    const error = (() => {
      try {
        dataServiceOptionsFromEnv({ SETTLEMENT_CONTRACT: contract, ...env })
      } catch (e) {
        return e
      }
      assert.fail(`accepted ${JSON.stringify(env)}`)
    })()
    assert.ok(error instanceof ConfigError, JSON.stringify(env))
    assert.match(error.message, message)
    assert.ok(!error.message.includes('\n'))
  }
})

test('an unreachable node stops start-up with one line naming RPC_URL', async () => {
  const options = dataServiceOptionsFromEnv({ SETTLEMENT_CONTRACT: contract, RPC_URL: 'http://127.0.0.1:1', DATA_SERVICE_PORT: '0' })
  const error = await startDataService(options, { log: createLogger('silent') }).then(
    () => assert.fail('started without a node'),
    (e: unknown) => e,
  )
  assert.ok(error instanceof ConfigError)
  assert.match(error.message, /^RPC_URL \(127\.0\.0\.1:1\) does not answer: /)
  assert.ok(!error.message.includes('\n'))
})

test('npm run data-service with a bad setting prints one line and exits 1', () => {
  const result = spawnSync(process.execPath, scriptArgs('scripts/data-service.ts'), {
    env: { ...process.env, SETTLEMENT_CONTRACT: contract, DATA_SERVICE_PORT: 'abc' },
    encoding: 'utf8',
  })
  assert.equal(result.status, 1)
  assert.equal(result.stderr, 'data-service: DATA_SERVICE_PORT must be an integer 0..65535, got "abc"\n')
})
