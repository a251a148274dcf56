/**
 * The widget's and the demo store's settings, the display of amounts, and the wallet command's one-line
 * refusals — everything about the payer's side that needs no running processor.
 */
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { test } from 'node:test'
import { privateKeyToAccount } from 'viem/accounts'
import { deriveLocalKey } from '../../src/config/local-keys.js'
import { demoStoreOptionsFromEnv } from '../../src/config/demo-store-options.js'
import { widgetOptionsFromEnv } from '../../src/config/widget-options.js'
import { displayAmount } from '../../src/wire/index.js'
import { scriptArgs } from '../../src/devnet/testing/index.js'

const contract = `0x${'ab'.repeat(20)}`

test('widget settings: defaults, the announced payment-link base, GATEWAY_DOMAIN, one line per bad value', () => {
  const options = widgetOptionsFromEnv({ SETTLEMENT_CONTRACT: contract })
  assert.deepEqual(
    { host: options.host, port: options.port, publicUrl: options.publicUrl, walletGatewayUrl: options.walletGatewayUrl, chainId: options.chainId, pollIntervalMs: options.pollIntervalMs, linkIntervalSeconds: options.linkIntervalSeconds },
    { host: '127.0.0.1', port: 4004, publicUrl: 'http://127.0.0.1:4004', walletGatewayUrl: 'ws://127.0.0.1:4000/ws', chainId: 31337, pollIntervalMs: 200, linkIntervalSeconds: 15 },
  )
  assert.deepEqual([options.liveStreams, options.paymentLinks.holdSeconds], [{ maxStreams: 10_000, maxStreamsPerAddress: 32, retryAfterSeconds: 30, trustedProxies: [] }, 120])
  assert.throws(() => widgetOptionsFromEnv({ SETTLEMENT_CONTRACT: contract, WIDGET_MAX_STREAMS_PER_ADDRESS: '0' }), /^ConfigError: WIDGET_MAX_STREAMS_PER_ADDRESS must be an integer 1\.\.1000000, got "0"$/)
  assert.throws(() => widgetOptionsFromEnv({ SETTLEMENT_CONTRACT: contract, PAYMENT_LINK_HOLD_SECONDS: '0' }), /^ConfigError: PAYMENT_LINK_HOLD_SECONDS must be an integer 1\.\.86400, got "0"$/)
  assert.throws(() => widgetOptionsFromEnv({ SETTLEMENT_CONTRACT: contract, WIDGET_LINK_INTERVAL_SECONDS: '301' }), /^ConfigError: WIDGET_LINK_INTERVAL_SECONDS must be an integer 0\.\.300, got "301"$/)
  assert.equal(widgetOptionsFromEnv({ SETTLEMENT_CONTRACT: contract, WIDGET_PORT: '0' }).publicUrl, undefined, 'port 0 announces the bound port')
  const behindProxy = widgetOptionsFromEnv({ SETTLEMENT_CONTRACT: contract, WIDGET_PORT: '0', CHECKOUT_WIDGET_URL: 'https://pay.example.com/', GATEWAY_DOMAIN: 'gw.example.com' })
  assert.deepEqual([behindProxy.publicUrl, behindProxy.walletGatewayUrl], ['https://pay.example.com', 'wss://gw.example.com/ws'])
  assert.throws(() => widgetOptionsFromEnv({ SETTLEMENT_CONTRACT: contract, WIDGET_PORT: 'x' }), /^ConfigError: WIDGET_PORT must be an integer 0\.\.65535, got "x"$/)
  assert.throws(() => widgetOptionsFromEnv({}), /^ConfigError: SETTLEMENT_CONTRACT is required/)
})

test('demo store settings: the devnet recipient and demo wallet on 31337 only, an https merchant API', () => {
  const local = demoStoreOptionsFromEnv({})
  assert.deepEqual(local, {
    chainId: 31337,
    host: '127.0.0.1',
    port: 3000,
    checkoutUrl: 'https://127.0.0.1:4003',
    merchantDir: '.data/demo-merchant',
    dataServiceUrl: 'http://127.0.0.1:4002',
    currency: 'USDC',
    beneficiary: privateKeyToAccount(deriveLocalKey('recipient', 0)).address.toLowerCase(),
    demoWallet: { rpcUrl: 'http://127.0.0.1:8545' },
    logLevel: 'info',
  })
  assert.throws(() => demoStoreOptionsFromEnv({ CHAIN_ID: '8453' }), /^ConfigError: STORE_BENEFICIARY is required/)
  const elsewhere = demoStoreOptionsFromEnv({ CHAIN_ID: '8453', STORE_BENEFICIARY: contract, CHECKOUT_URL: 'https://checkout.example.com/' })
  assert.deepEqual([elsewhere.demoWallet, elsewhere.checkoutUrl], [undefined, 'https://checkout.example.com'])
  assert.throws(() => demoStoreOptionsFromEnv({ CHECKOUT_URL: 'http://127.0.0.1:4003' }), /^ConfigError: CHECKOUT_URL must use https:/)
  assert.throws(() => demoStoreOptionsFromEnv({ STORE_PORT: '70000' }), /^ConfigError: STORE_PORT must be an integer 0\.\.65535/)
})

test('amounts in display units: decimals applied, thousands grouped, two fraction digits at least, nothing rounded', () => {
  assert.equal(displayAmount('14500000', 6), '14.50')
  assert.equal(displayAmount(1_234_567_890_123n, 6), '1,234,567.890123')
  assert.equal(displayAmount('1', 6), '0.000001')
  assert.equal(displayAmount('7', 0), '7')
  assert.equal(displayAmount('250', 1), '25.0')
  assert.equal(displayAmount(10n ** 18n, 18), '1.00')
})

test('the wallet command refuses a link that is not a payment link, and a missing one, in one line', () => {
  const run = (...args: string[]) => spawnSync(process.execPath, [...scriptArgs('scripts/wallet.ts'), ...args], { encoding: 'utf8' })
  const notALink = run('pay', 'http://127.0.0.1:4004/elsewhere')
  assert.equal(notALink.status, 1)
  assert.equal(notALink.stderr.trim(), 'wallet: not a payment link (expected <widget>/s/<charge id>?t=<token> or <widget>/r/<refund id>?t=<token>): http://127.0.0.1:4004/elsewhere')
  const twoWallets = run('pay', 'http://127.0.0.1:4004/r/x?t=y', '--payer', '1', '--merchant', '0')
  assert.equal(twoWallets.status, 1)
  assert.equal(twoWallets.stderr.trim(), 'wallet: --payer and --merchant name two wallets: give one')
  const missing = run('pay')
  assert.equal(missing.status, 1)
  assert.equal(missing.stderr.trim(), 'wallet: usage: npm run wallet -- pay <payment link> (--help)')
})
