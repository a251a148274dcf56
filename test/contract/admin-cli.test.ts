/**
 * `npm run admin -- info` and `balances` as an operator reads them: labelled, aligned, amounts in token
 * units; `--json` gives scripts the raw units.
 */
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { startLocalChain, sendSettlements, type LocalChain } from '../helpers/local-chain.js'

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

function admin(...args: string[]): string {
  const run = spawnSync(process.execPath, ['--import', 'tsx', 'scripts/admin.ts', ...args, '--deployment', deploymentPath], { encoding: 'utf8' })
  assert.equal(run.status, 0, run.stderr)
  return run.stdout
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
