/**
 * `npm run admin`'s certificate authority commands end to end: the real script in a child process
 * against a real CA, with no deployment file anywhere, the token read from the local CA's file.
 */
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { X509Certificate, createPrivateKey } from 'node:crypto'
import { readFileSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { createKeyAndCsr } from '../../src/processor/ca/index.js'
import { x509 } from '../../src/processor/ca/x509.js'
import type { Database } from '../../src/processor/db/open-database.js'
import { startDatabaseAndCa, tempCaDir, type TestCa, scriptArgs } from '../../src/devnet/testing/index.js'

let db: Database
let ca: TestCa

let stop: () => Promise<void>

before(async () => ({ db, ca, stop } = await startDatabaseAndCa()))
after(() => stop?.())

function admin(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  // No CA_ADMIN_TOKEN unless a case sets one: the token comes from the local CA's file.
  const childEnv: NodeJS.ProcessEnv = { ...process.env, CA_ADMIN_TOKEN: undefined, CA_URL: ca.url, CA_DATA_DIR: ca.dataDir, DEPLOYMENT_FILE: '/nonexistent/deployment.json', ...env }
  return new Promise((resolve) => {
    execFile(process.execPath, [...scriptArgs('scripts/admin.ts'), ...args, '--deployment', '/nonexistent/deployment.json'], { env: childEnv }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    )
  })
}

async function createMerchant(name: string): Promise<string> {
  const created = await admin(['create-merchant', '--name', name, '--webhook-url', 'http://127.0.0.1:3000/hooks', '--acquirer-id', `0x${'12'.repeat(16)}`])
  assert.equal(created.code, 0, created.stderr)
  const merchant = JSON.parse(created.stdout)
  assert.equal(merchant.name, name)
  assert.equal(merchant.acquirerId, `0x${'12'.repeat(16)}`)
  return merchant.id as string
}

test('create-merchant, issue-certificate --csr, show-merchant, revoke-certificate, crl', async () => {
  const merchantId = await createMerchant('CLI Store')
  const dir = tempCaDir()
  const { csrPem } = await createKeyAndCsr()
  writeFileSync(join(dir, 'req.csr'), csrPem)
  const issued = await admin(['issue-certificate', merchantId, '--csr', join(dir, 'req.csr'), '--out', join(dir, 'client.crt.pem'), '--validity-days', '30'])
  assert.equal(issued.code, 0, issued.stderr)
  const certificate = new x509.X509Certificate(readFileSync(join(dir, 'client.crt.pem'), 'utf8'))
  assert.match(issued.stdout, new RegExp(`^issued ${certificate.serialNumber} for ${merchantId}`))
  assert.ok(Math.abs(certificate.notAfter.getTime() - (Date.now() + 30 * 86_400_000)) < 120_000)

  const toStdout = await admin(['issue-certificate', merchantId, '--csr', join(dir, 'req.csr')])
  assert.match(toStdout.stdout, /^-----BEGIN CERTIFICATE-----/)

  const shown = JSON.parse((await admin(['show-merchant', merchantId])).stdout)
  assert.equal(shown.certificates.length, 2)

  const revoked = await admin(['revoke-certificate', certificate.serialNumber, '--reason', 'cessationOfOperation'])
  assert.equal(revoked.code, 0, revoked.stderr)
  assert.equal(JSON.parse(revoked.stdout).revocationReason, 'cessationOfOperation')

  const crl = await admin(['crl'], { CA_DATA_DIR: tempCaDir() })
  assert.equal(crl.code, 0, crl.stderr)
  assert.equal(new x509.X509Crl(crl.stdout).findRevoked(certificate.serialNumber)?.reason, x509.X509CrlReason.cessationOfOperation)
})

test('issue-certificate --generate writes a key (0600) that never left this machine, its certificate and the CA certificate', async () => {
  const merchantId = await createMerchant('Generated Store')
  const dir = join(tempCaDir(), 'credentials')
  const result = await admin(['issue-certificate', merchantId, '--generate', '--out-dir', dir])
  assert.equal(result.code, 0, result.stderr)
  assert.equal(statSync(join(dir, 'client.key.pem')).mode & 0o777, 0o600)
  const certificate = new X509Certificate(readFileSync(join(dir, 'client.crt.pem')))
  assert.ok(certificate.checkPrivateKey(createPrivateKey(readFileSync(join(dir, 'client.key.pem')))))
  assert.ok(certificate.verify(new X509Certificate(readFileSync(join(dir, 'ca.crt.pem'))).publicKey))
  assert.equal(readFileSync(join(dir, 'ca.crt.pem'), 'utf8'), ca.caCertificatePem)
  assert.match(certificate.subjectAltName ?? '', new RegExp(`URI:urn:merchant:${merchantId}`))
})

test('failures are one line on stderr and exit 1', async () => {
  const cases: [string[], Record<string, string>, RegExp][] = [
    [['create-merchant', '--name', 'x', '--webhook-url', 'https://a.example'], { CA_ADMIN_TOKEN: 'w'.repeat(40) }, /^admin: POST \/merchants: 401 the bearer token is wrong$/],
    [['create-merchant', '--name', 'x', '--webhook-url', 'https://a.example'], { CA_DATA_DIR: tempCaDir() }, /^admin: CA_ADMIN_TOKEN is required \(on chain 31337 the local CA writes it to .*admin-token\)$/],
    [['create-merchant', '--webhook-url', 'https://a.example'], {}, /^admin: --name is required/],
    [['issue-certificate', 'm_000000000000000000000000'], {}, /^admin: issue-certificate takes either --csr <file> or --generate --out-dir <dir>$/],
    [['issue-certificate', 'm_000000000000000000000000', '--csr', '/nonexistent.csr'], {}, /^admin: --csr: cannot read \/nonexistent\.csr \(ENOENT\)$/],
    [['revoke-certificate', 'ab', '--reason', 'nope'], {}, /^admin: POST \/certificates\/ab\/revoke: 400 reason must be one of/],
    [['crl'], { CA_URL: 'http://127.0.0.1:1' }, /^admin: the CA at http:\/\/127\.0\.0\.1:1 does not answer/],
  ]
  // Independent commands: run at once, each a process that mostly waits on its start-up and the CA.
  const results = await Promise.all(cases.map(([args, env]) => admin(args, env)))
  cases.forEach(([args, , message], i) => {
    const result = results[i]!
    assert.equal(result.code, 1, args.join(' '))
    assert.match(result.stderr.trim(), message)
    assert.equal(result.stderr.trim().split('\n').length, 1)
  })
})
