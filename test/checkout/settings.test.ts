/**
 * The checkout engine's settings: defaults on chain 31337, the operator's TLS files and CA certificate
 * required off it, one ConfigError line naming the setting for each bad value, and the script failing
 * with that one line.
 */
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { test } from 'node:test'
import { createKeyAndCsr, issueServerCertificate, openAuthority } from '../../src/processor/ca/index.js'
import { x509 } from '../../src/processor/ca/x509.js'
import { loadTlsMaterial } from '../../src/processor/checkout/tls/load-tls-material.js'
import { checkoutOptionsFromEnv } from '../../src/config/checkout-options.js'
import { ConfigError } from '../../src/config/parse-env.js'
import { createLogger } from '../../src/platform/observability/logger.js'
import { tempCaDir, scriptArgs } from '../../src/devnet/testing/index.js'

const log = createLogger('silent')
const CONTRACT = '0x5fbdb2315678afecb367f032d93f642f64180aa3'
const OFF_LOCAL = { CHAIN_ID: '1', SETTLEMENT_CONTRACT: CONTRACT, RPC_URL: 'https://rpc.example.com' }

test('chain 31337 defaults: port 4003, 15-minute charges, no confirmations, the local CA, the widget on 4004', () => {
  const options = checkoutOptionsFromEnv({ SETTLEMENT_CONTRACT: CONTRACT })
  assert.equal(options.port, 4003)
  assert.equal(options.host, '127.0.0.1')
  assert.equal(options.chargeTtlSeconds, 900)
  assert.equal(options.confirmationBlocks, 0)
  assert.deepEqual([options.removedAfterBlocks, options.restoreWatchBlocks], [3, 64])
  assert.equal(options.webhookRetriesPerMinute, 10)
  assert.equal(options.explorerUrl, 'http://127.0.0.1:4001')
  assert.equal(options.widgetBaseUrl, 'http://127.0.0.1:4004')
  assert.deepEqual(options.tls, { server: undefined, ca: undefined, caDataDir: '.data/ca', hosts: ['127.0.0.1', 'localhost'] })
  const domain = checkoutOptionsFromEnv({ SETTLEMENT_CONTRACT: CONTRACT, CHECKOUT_DOMAIN: 'Pay.Example.com:443', CHECKOUT_WIDGET_URL: 'https://pay.example.com/' })
  assert.deepEqual(domain.tls.hosts, ['127.0.0.1', 'localhost', 'pay.example.com'])
  assert.equal(domain.widgetBaseUrl, 'https://pay.example.com')
})

test('each bad setting stops start-up with one line naming it', () => {
  const cases: [Record<string, string>, RegExp][] = [
    [OFF_LOCAL, /^CHECKOUT_TLS_CERT_PATH and CHECKOUT_TLS_KEY_PATH are required on chain 1/],
    [{ ...OFF_LOCAL, CHECKOUT_TLS_CERT_PATH: 'a', CHECKOUT_TLS_KEY_PATH: 'b' }, /^CA_CERT_PATH is required on chain 1/],
    [{ SETTLEMENT_CONTRACT: CONTRACT, CHECKOUT_TLS_CERT_PATH: 'a' }, /^CHECKOUT_TLS_CERT_PATH and CHECKOUT_TLS_KEY_PATH go together: CHECKOUT_TLS_KEY_PATH is missing/],
    [{ SETTLEMENT_CONTRACT: CONTRACT, CA_CERT_PATH: 'ca.pem' }, /^CA_KEY_PATH is required to issue the checkout server's certificate/],
    [{ SETTLEMENT_CONTRACT: CONTRACT, CHARGE_TTL_SECONDS: '0' }, /^CHARGE_TTL_SECONDS must be an integer 1\.\./],
    [{ SETTLEMENT_CONTRACT: CONTRACT, CONFIRMATION_BLOCKS: 'two' }, /^CONFIRMATION_BLOCKS must be an integer/],
    [{ SETTLEMENT_CONTRACT: CONTRACT, CHECKOUT_REMOVED_AFTER_BLOCKS: '0' }, /^CHECKOUT_REMOVED_AFTER_BLOCKS must be an integer 1\.\./],
    [{ SETTLEMENT_CONTRACT: CONTRACT, CHECKOUT_PORT: '70000' }, /^CHECKOUT_PORT must be an integer 0\.\.65535/],
    [{ SETTLEMENT_CONTRACT: CONTRACT, EXPLORER_URL: 'ftp://x' }, /^EXPLORER_URL must use http: or https:/],
  ]
  for (const [env, message] of cases) {
    assert.throws(() => checkoutOptionsFromEnv(env), (error: Error) => error instanceof ConfigError && message.test(error.message) && !error.message.includes('\n'), JSON.stringify(env))
  }
})

test("the operator's files: a server certificate and key that belong together, and the CA certificate", async () => {
  const dir = tempCaDir()
  const authority = await openAuthority({ chainId: 31337, dataDir: dir }, log)
  const { keys, privateKeyPem } = await createKeyAndCsr()
  const publicKey = new x509.PublicKey(await crypto.subtle.exportKey('spki', keys.publicKey))
  const certificate = await issueServerCertificate(authority, ['pay.example.com'], publicKey, { notBefore: new Date(Date.now() - 60_000), notAfter: new Date(Date.now() + 86_400_000) })
  const files = { cert: join(dir, 'server.crt'), key: join(dir, 'server.key'), otherKey: join(dir, 'other.key') }
  writeFileSync(files.cert, certificate.toString('pem'))
  writeFileSync(files.key, privateKeyPem)
  writeFileSync(files.otherKey, (await createKeyAndCsr()).privateKeyPem)
  const env = { ...OFF_LOCAL, CHECKOUT_TLS_CERT_PATH: files.cert, CHECKOUT_TLS_KEY_PATH: files.key, CA_CERT_PATH: join(dir, 'ca.crt.pem'), WEBHOOK_ENCRYPTION_KEY: 'e'.repeat(32) }

  const material = await loadTlsMaterial(checkoutOptionsFromEnv(env), log)
  assert.deepEqual(material, { key: privateKeyPem, cert: certificate.toString('pem'), ca: authority.certificatePem })
  await assert.rejects(loadTlsMaterial(checkoutOptionsFromEnv({ ...env, CHECKOUT_TLS_KEY_PATH: files.otherKey }), log), (error: Error) =>
    error instanceof ConfigError && /^CHECKOUT_TLS_CERT_PATH \/ CHECKOUT_TLS_KEY_PATH \/ CA_CERT_PATH: the TLS material is unusable/.test(error.message),
  )
  await assert.rejects(loadTlsMaterial(checkoutOptionsFromEnv({ ...env, CA_CERT_PATH: join(dir, 'missing.pem') }), log), /^ConfigError: CA_CERT_PATH: .*missing\.pem cannot be read \(ENOENT\)$/)
})

test('the script fails with one line naming the setting', () => {
  const result = spawnSync(process.execPath, scriptArgs('scripts/checkout.ts'), { env: { ...process.env, ...OFF_LOCAL }, encoding: 'utf8' })
  assert.equal(result.status, 1)
  assert.equal(result.stderr.trim(), 'checkout: CHECKOUT_TLS_CERT_PATH and CHECKOUT_TLS_KEY_PATH are required on chain 1: a server certificate is only issued at start on chain 31337')
})
