/**
 * Where the CA's key and token come from: a local CA and token created on chain 31337 and reused after,
 * refused on any other chain; the operator's files off it (missing, mismatched, https-only webhooks);
 * a CRL of another CA replaced at start; and one ConfigError line per bad setting.
 */
import assert from 'node:assert/strict'
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { createServer, type AddressInfo } from 'node:net'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { localAuthorityPaths, openAuthority, startCa } from '../../src/processor/ca/index.js'
import { x509 } from '../../src/processor/ca/x509.js'
import { caOptionsFromEnv } from '../../src/config/ca-options.js'
import { ConfigError } from '../../src/config/parse-env.js'
import { latestRevocationList } from '../../src/processor/db/certificates.js'
import { openDatabase, type Database } from '../../src/processor/db/open-database.js'
import { testDatabase } from '../../src/devnet/test-database/index.js'
import { log, startTestCa, tempCaDir } from '../../src/devnet/testing/index.js'

let db: Database
const TOKEN = 't'.repeat(40)

before(async () => {
  db = await openDatabase(await testDatabase(), log)
})
after(() => db?.close())

const mode = (path: string) => statSync(path).mode & 0o777

test('on chain 31337 a local CA and admin token are created on first start and reused after', async () => {
  const dataDir = join(tempCaDir(), 'ca')
  const first = await startTestCa(db, { CA_DATA_DIR: dataDir })
  const { certPath, keyPath } = localAuthorityPaths(dataDir)
  assert.equal(mode(keyPath), 0o600)
  assert.equal(mode(join(dataDir, 'admin-token')), 0o600)
  assert.equal(first.adminTokenFile, join(dataDir, 'admin-token'))
  assert.equal(readFileSync(certPath, 'utf8'), first.caCertificatePem)
  const caCertificate = new x509.X509Certificate(first.caCertificatePem)
  assert.ok(await caCertificate.isSelfSigned())
  assert.equal(caCertificate.getExtension(x509.BasicConstraintsExtension)?.ca, true)
  await first.stop()

  const second = await startTestCa(db, { CA_DATA_DIR: dataDir })
  assert.equal(second.caCertificatePem, first.caCertificatePem)
  assert.equal(second.token, first.token)
  await second.stop()
})

test('no local CA on another chain: the CA files are required and nothing is created', async () => {
  const dataDir = tempCaDir()
  assert.throws(() => caOptionsFromEnv({ CHAIN_ID: '8453', CA_ADMIN_TOKEN: TOKEN, CA_DATA_DIR: dataDir }), {
    name: 'ConfigError',
    message: 'CA_CERT_PATH and CA_KEY_PATH are required on chain 8453: a local CA is only created on chain 31337',
  })
  await assert.rejects(openAuthority({ chainId: 8453, dataDir }, log), /^ConfigError: CA_CERT_PATH and CA_KEY_PATH are required on chain 8453/)
  assert.equal(existsSync(localAuthorityPaths(dataDir).keyPath), false)
})

test("the operator's CA files off chain 31337: used when right, one line naming the setting when not", async () => {
  const source = tempCaDir()
  await openAuthority({ chainId: 31337, dataDir: source }, log)
  const { certPath, keyPath } = localAuthorityPaths(source)
  const env = { CHAIN_ID: '8453', CA_CERT_PATH: certPath, CA_KEY_PATH: keyPath, CA_ADMIN_TOKEN: TOKEN }

  const ca = await startTestCa(db, env)
  assert.equal(ca.caCertificatePem, readFileSync(certPath, 'utf8'))
  assert.equal(ca.adminTokenFile, undefined)
  const refused = await ca.request('POST', '/merchants', { body: JSON.stringify({ name: 'Shop', webhookUrl: 'http://shop.example/hooks' }) })
  assert.equal(refused.status, 400)
  assert.match(refused.body.detail, /webhookUrl must be an https URL/)
  assert.equal((await ca.request('POST', '/merchants', { body: JSON.stringify({ name: 'Shop', webhookUrl: 'https://shop.example/hooks' }) })).status, 201)
  await ca.stop()

  const otherDir = tempCaDir()
  await openAuthority({ chainId: 31337, dataDir: otherDir }, log)
  const taken = createServer()
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve))
  const start = (overrides: Record<string, string>) => startCa(caOptionsFromEnv({ ...env, CA_PORT: '0', ...overrides }), { db, log })
  const cases: [Record<string, string>, RegExp][] = [
    [{ CA_CERT_PATH: '/nonexistent/ca.crt.pem' }, /^CA_CERT_PATH: \/nonexistent\/ca\.crt\.pem does not exist$/],
    [{ CA_KEY_PATH: '/nonexistent/ca.key.pem' }, /^CA_KEY_PATH: \/nonexistent\/ca\.key\.pem does not exist$/],
    [{ CA_CERT_PATH: keyPath }, /^CA_CERT_PATH: .* is not a PEM certificate$/],
    [{ CA_KEY_PATH: certPath }, /^CA_KEY_PATH: .* is not an unencrypted PEM private key/],
    [{ CA_KEY_PATH: localAuthorityPaths(otherDir).keyPath }, /^CA_KEY_PATH: .* is not the key of the CA certificate/],
    [{ CA_PORT: String((taken.address() as AddressInfo).port) }, /^CA_PORT \d+ on 127\.0\.0\.1 is not available \(EADDRINUSE\)$/],
  ]
  for (const [overrides, message] of cases) {
    const error = await start(overrides).then(() => assert.fail('started'), (e: unknown) => e as Error)
    assert.ok(error instanceof ConfigError, String(error))
    assert.match(error.message, message)
    assert.ok(!error.message.includes('\n'))
  }
  taken.close()
})

test('a half-present local CA is refused rather than overwritten', async () => {
  const dataDir = tempCaDir()
  writeFileSync(localAuthorityPaths(dataDir).keyPath, 'kept')
  await assert.rejects(openAuthority({ chainId: 31337, dataDir }, log), /^ConfigError: CA_DATA_DIR: .*ca\.key\.pem exists without .*ca\.crt\.pem/)
  assert.equal(readFileSync(localAuthorityPaths(dataDir).keyPath, 'utf8'), 'kept')
})

test("a CRL signed by another CA is replaced at start, so checkout replicas never load one they cannot verify", async () => {
  const first = await startTestCa(db)
  await first.stop()
  const second = await startTestCa(db)
  const crl = new x509.X509Crl((await latestRevocationList(db.pool))!.pem)
  assert.ok(await crl.verify({ publicKey: new x509.X509Certificate(second.caCertificatePem) }))
  await second.stop()
})

test('bad settings stop start-up with one line naming the setting', () => {
  const cases: [Record<string, string>, RegExp][] = [
    [{ CA_HOST: '0.0.0.0' }, /^CA_HOST must be a loopback address/],
    [{ CA_HOST: 'localhost' }, /^CA_HOST must be a loopback address/],
    [{ CA_PORT: 'x' }, /^CA_PORT must be an integer/],
    [{ CA_CERT_PATH: '/a' }, /^CA_CERT_PATH and CA_KEY_PATH go together: CA_KEY_PATH is missing/],
    [{ CHAIN_ID: '8453', CA_CERT_PATH: '/a', CA_KEY_PATH: '/b' }, /^CA_ADMIN_TOKEN is required on chain 8453/],
    [{ CA_ADMIN_TOKEN: 'short' }, /^CA_ADMIN_TOKEN must be at least 32 characters/],
    [{ CA_CRL_VALIDITY_HOURS: '1' }, /^CA_CRL_VALIDITY_HOURS must be an integer 2\.\./],
  ]
  for (const [env, message] of cases) assert.throws(() => caOptionsFromEnv(env), (error: Error) => error instanceof ConfigError && message.test(error.message))
  assert.equal(caOptionsFromEnv({ CA_HOST: '127.0.0.2' }).host, '127.0.0.2')
  assert.equal(caOptionsFromEnv({ CA_HOST: '::1' }).host, '::1')
  assert.deepEqual(caOptionsFromEnv({}), { chainId: 31337, host: '127.0.0.1', port: 4005, dataDir: '.data/ca', files: undefined, adminToken: undefined, crlValidityHours: 168, logLevel: 'info' })
})
