/**
 * `npm run admin -- info` and `balances` as an operator reads them: labelled, aligned, amounts in token
 * units; `--json` gives scripts the raw units.
 */
import assert from 'node:assert/strict'
import { execFile, spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { privateKeyToAccount } from 'viem/accounts'
import { anvilKeys } from '../../src/config/local-keys.js'
import { startLocalChain, sendSettlements, type LocalChain, scriptArgs } from '../../src/devnet/testing/index.js'

let chain: LocalChain
const dir = mkdtempSync(join(tmpdir(), 'admin-cli-'))
const deploymentPath = join(dir, 'deployment.json')

before(async () => {
  chain = await startLocalChain()
  writeFileSync(deploymentPath, JSON.stringify(chain.deployment))
  await sendSettlements(chain, 3)
})
after(async () => {
  await chain.stop()
  rmSync(dir, { recursive: true, force: true })
})

function runAdmin(args: string[], env: Record<string, string> = {}) {
  return spawnSync(process.execPath, adminArgs(args), { encoding: 'utf8', env: { ...process.env, ...env } })
}

const adminArgs = (args: string[]) => [...scriptArgs('scripts/admin.ts'), ...args, '--deployment', deploymentPath]

function admin(...args: string[]): string {
  const run = runAdmin(args)
  assert.equal(run.status, 0, run.stderr)
  return run.stdout
}

/** A refusal: exit 1 and exactly one line on stderr, never a stack trace. Several run at once. */
async function refused(args: string[], expected: RegExp, env: Record<string, string> = {}): Promise<void> {
  const run = await new Promise<{ status: number; stdout: string; stderr: string }>((resolve) =>
    execFile(process.execPath, adminArgs(args), { env: { ...process.env, ...env } }, (error, stdout, stderr) => resolve({ status: error ? Number(error.code ?? 1) : 0, stdout, stderr })),
  )
  assert.equal(run.status, 1, run.stdout + run.stderr)
  assert.equal(run.stderr.trimEnd().split('\n').length, 1, run.stderr)
  assert.match(run.stderr.trim(), expected)
}

test('admin info: one labelled line per setting, fees in every token\'s units; --json gives raw units', () => {
  const lines = admin('info').trim().split('\n')
  assert.deepEqual(
    lines.map((line) => line.split(/\s{2,}/)[0]),
    ['settlement contract', 'owner', 'fee recipient', 'base fee', 'acquiring pack price', 'max acquiring fee'],
  )
  const valueColumn = lines[0]!.indexOf('0x')
  assert.ok(lines.every((line) => line.length > valueColumn && line[valueColumn - 1] === ' ' && line[valueColumn] !== ' '), 'values start in one column')
  assert.match(lines[3]!, /base fee +2\.50 USDC, 2\.50 EURC \(2500000 units\)$/)
  assert.match(lines[5]!, /max acquiring fee +5\.00 % \(500 basis points\)$/)

  const json = JSON.parse(admin('info', '--json')) as Record<string, string>
  assert.equal(json.baseFeeAmount, '2500000')
  assert.equal(json.owner, json.owner!.toLowerCase())
})

test('admin balances: a table in token units with a header; --json gives raw units per holder', () => {
  const [header, rule, ...rows] = admin('balances').trim().split('\n')
  assert.deepEqual(header!.split(/\s+/), ['holder', 'USDC', 'EURC'])
  assert.match(rule!, /^-+ {2}-+ {2}-+$/)
  const feeRecipient = rows.find((row) => row.startsWith(chain.deployment.feeRecipient))
  assert.ok(feeRecipient, `the fee recipient has a row:\n${rows.join('\n')}`)

  const json = JSON.parse(admin('balances', '--json')) as { holder: string; balances: Record<string, string> }[]
  const raw = json.find((entry) => entry.holder === chain.deployment.feeRecipient)!.balances
  const shown = feeRecipient!.split(/\s+/).slice(1)
  assert.deepEqual(shown, ['USDC', 'EURC'].map((symbol) => (Number(raw[symbol]) / 1e6).toFixed(2)))
})

test('bad input gets one clear line and exit 1: an unknown command, a malformed address, a Safe or a key that does not own the contract', async () => {
  const stranger = privateKeyToAccount(anvilKeys[5]!).address.toLowerCase()
  const owner = chain.deployment.feeRecipient
  await Promise.all([
    refused(['bogus'], /^admin: unknown command "bogus": use info, balances, relayer, an owner operation/),
    refused(['transfer-ownership', '0x1234'], /^admin: the new owner must be a 0x-prefixed 20-byte address, got "0x1234"$/),
    refused(['set-fee-recipient', 'alice'], /^admin: the fee recipient must be a 0x-prefixed 20-byte address, got "alice"$/),
    refused(['set-base-fee', '2.1234567'], /^admin: <amount> must be an integer amount in the token's smallest unit or in token units with a decimal point and at most 6 decimals \(3\.00 = 3000000\), got "2\.1234567"$/),
    refused(['set-max-acquiring-fee', '10001'], /^admin: the maximum acquiring fee is at most 10000 basis points/),
    refused(['set-base-fee', '1', '--propose', '--safe', stranger], new RegExp(`^admin: the Safe ${stranger} is not the owner of ${chain.deployment.settlementContract} \\(the owner is ${owner}\\)`)),
    refused(['set-base-fee', '1'], new RegExp(`^admin: ADMIN_PRIVATE_KEY's account ${stranger} is not the owner of .* use --propose`), { ADMIN_PRIVATE_KEY: anvilKeys[5]! }),
    refused(['accept-ownership'], /^admin: no ownership transfer is pending/),
    refused(['set-base-fee', '1', '--execute', '--signatures', '0x00'], /^admin: --execute goes through a Safe, and the owner 0x[0-9a-f]{40} is not one/),
  ])
})

test('--propose for an account owner: the raw call for a hardware wallet, the change, and a batch file; nothing is sent', () => {
  const out = join(dir, 'fee.json')
  const proposal = JSON.parse(admin('set-base-fee', '2600000', '--propose', '--json', '--out', out)) as { to: string; value: string; data: string; from: string; safe?: unknown; changes: unknown[] }
  assert.equal(proposal.to, chain.deployment.settlementContract)
  assert.equal(proposal.value, '0')
  assert.match(proposal.data, /^0x[0-9a-f]{8}0{58}27ac40$/)
  assert.equal(proposal.from, chain.deployment.feeRecipient)
  assert.equal(proposal.safe, undefined)
  assert.deepEqual(proposal.changes, [{ setting: 'base fee', current: '2.50 USDC, 2.50 EURC (2500000 units)', next: '2.60 USDC, 2.60 EURC (2600000 units)' }])
  assert.equal(JSON.parse(readFileSync(out, 'utf8')).transactions[0].data, proposal.data)
  assert.match(admin('info'), /base fee +2\.50 USDC/)
})

test('issue 43: the positional amount in token units (3.00), and the batch file under .data/proposals/ of the working directory, not the repository root', () => {
  const cwd = join(dir, 'operator')
  mkdirSync(cwd, { recursive: true })
  const run = spawnSync(process.execPath, adminArgs(['set-base-fee', '3.00', '--propose', '--json']), { cwd, encoding: 'utf8' })
  assert.equal(run.status, 0, run.stderr)
  const proposal = JSON.parse(run.stdout) as { data: string; changes: unknown[] }
  assert.deepEqual(proposal.changes, [{ setting: 'base fee', current: '2.50 USDC, 2.50 EURC (2500000 units)', next: '3.00 USDC, 3.00 EURC (3000000 units)' }])
  assert.deepEqual(readdirSync(cwd), ['.data'])
  assert.equal(JSON.parse(readFileSync(join(cwd, '.data/proposals/set-base-fee.safe-batch.json'), 'utf8')).transactions[0].data, proposal.data)
})

test('an owner key sends the operation at once and prints the change: set-max-acquiring-fee, allow-token', () => {
  assert.match(admin('set-max-acquiring-fee', '400'), /max acquiring fee +5\.00 % \(500 basis points\) -> 4\.00 % \(400 basis points\)/)
  assert.match(admin('info'), /max acquiring fee +4\.00 % \(400 basis points\)$/m)
  const token = privateKeyToAccount(anvilKeys[6]!).address.toLowerCase()
  assert.match(admin('allow-token', token), new RegExp(`acquiring packs payable in ${token} +no -> yes`))
})
