/**
 * Issue 43 item 5: every `ts` sample of docs/sdk.md runs as written, in Node through tsx, as a reader
 * would paste it into a script: against a real explorer on anvil (two, for the failover sample) and, for
 * the wallet client's, a real gateway with its submitter. What the page leaves to the reader (an address,
 * `ledger`, `confirm`, `render`, `csv`, the wallet's `account`, `session` and `token` …) is given by a
 * prelude that records each call; a sample passes when it exits 0 and has called what it is there to call
 * (a live feed renders a settlement sent while it listens, a payment ends in SUCCESS). The one sample marked
 * "Browser only" gets a `localStorage` of its own, as a browser has; without it Node fails it with
 * `ReferenceError: localStorage is not defined`.
 */
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { randomBytes } from 'node:crypto'
import { createChainClient, readDirectory } from '../../src/chain/index.js'
import { anvilKeys } from '../../src/config/local-keys.js'
import { gatewayOptionsFromEnv } from '../../src/config/gateway-options.js'
import type { Database } from '../../src/processor/db/open-database.js'
import { startGateway, type RunningGateway } from '../../src/processor/gateway/index.js'
import { createLogger } from '../../src/platform/observability/logger.js'
import type { RunningSubmitter } from '../../src/processor/submitter/start-submitter.js'
import type { Settlement } from '../../src/wire/settlement.js'
import { startTestExplorer, waitForHead, type TestExplorer, sendSettlements, type LocalChain, startChainAndDatabase, startTestSubmitter, repoRoot } from '../../src/devnet/testing/index.js'

let chain: LocalChain
let db: Database
let explorers: TestExplorer[] = []
let gateway: RunningGateway
let submitter: RunningSubmitter
let workDir: string

before(async () => {
  ;({ chain, db } = await startChainAndDatabase())
  await sendSettlements(chain, 12)
  explorers = [await startTestExplorer(chain, { CONFIRMATION_BLOCKS: '0' }), await startTestExplorer(chain, { CONFIRMATION_BLOCKS: '0' })]
  for (const explorer of explorers) await waitForHead(chain, explorer.url)
  const env = { RPC_URL: chain.rpcUrl, SETTLEMENT_CONTRACT: chain.deployment.settlementContract, START_BLOCK: String(chain.deployment.startBlock), EXPLORER_URL: explorers[0]!.url, LOG_LEVEL: 'warn' }
  gateway = await startGateway(gatewayOptionsFromEnv({ ...env, GATEWAY_PORT: '0' }), { db, log: createLogger('warn') })
  // sendSettlements uses the devnet relayer directly: the submitter gets another key.
  submitter = await startTestSubmitter(chain, db, { SUBMITTER_IDLE_POLL_MS: '50', RELAYER_PRIVATE_KEY: anvilKeys[2]! })
  // Inside the project, so that tsx and the SDK's viem resolve from its node_modules.
  mkdirSync(join(repoRoot, '.data'), { recursive: true })
  workDir = mkdtempSync(join(repoRoot, '.data', 'sdk-samples-'))
})

after(async () => {
  await submitter?.stop()
  await gateway?.stop()
  for (const explorer of explorers) await explorer.stop()
  await db?.close()
  await chain?.stop()
  if (workDir) rmSync(workDir, { recursive: true, force: true })
})

const samples = () => [...readFileSync(join(repoRoot, 'docs/sdk.md'), 'utf8').matchAll(/^( *)```ts\n([\s\S]*?)^\1```$/gm)].map(([, indent, code]) => code!.replace(new RegExp(`^${indent}`, 'gm'), ''))

/** What each kind of sample is there to do, as the prelude's records show it. */
const EXPECTED: [RegExp, string][] = [
  [/ledger\.match/, `calls.some((c) => c[0] === 'ledger.match')`],
  [/confirm\(/, `calls.some((c) => c[0] === 'confirm')`],
  [/chart\.bar/, `calls.some((c) => c[0] === 'chart.bar' && c[1] > 0)`],
  [/render\(s\)/, `calls.some((c) => c[0] === 'render')`],
  [/csv\.write/, `calls.some((c) => c[0] === 'csv.write')`],
  [/exportEvents/, `readFileSync('march.csv', 'utf8').split('\\n').length > 2`],
  [/wallet\.pay/, `final.status === 'SUCCESS'`],
  [/localStorage\.setItem/, `localStorage.getItem('cursor') !== null`],
  [/writeFileSync\(CURSOR_FILE/, `readFileSync('explorer-cursor.txt', 'utf8').length > 0`],
]

function script(code: string, given: Record<string, unknown>): string {
  const sdk = join(repoRoot, 'src/sdk/index.ts')
  const declared = (name: string) => new RegExp(`(const|let)\\s+${name}\\b|import\\s*\\{[^}]*\\b${name}\\b`).test(code)
  const values = Object.entries(given).filter(([name]) => !declared(name)).map(([name, value]) => `const ${name} = ${JSON.stringify(value)}`)
  const browser = /Browser only/.test(code)
  const sdkNames = ['ExplorerClient', 'ExplorerApiError', 'WalletClient'].filter((name) => !declared(name))
  const expected = EXPECTED.filter(([pattern]) => pattern.test(code)).map(([, check]) => `() => ${check}`)
  return `import * as __sdk from ${JSON.stringify(sdk)}
import { privateKeyToAccount as __account } from 'viem/accounts'
import { createWriteStream as __createWriteStream, readFileSync as __read } from 'node:fs'
import { once as __once } from 'node:events'
${sdkNames.map((name) => `const ${name} = __sdk.${name}`).join('\n')}
const calls = []
const record = (name) => (...args) => void calls.push([name, ...args.map((a) => (a && typeof a === 'object' && 'settlements' in a ? a.settlements : a))])
${declared('explorer') ? '' : `const explorer = new __sdk.ExplorerClient({ baseUrl: ${JSON.stringify(given.__explorerUrl)} })`}
${values.join('\n')}
const ledger = { match: record('ledger.match') }
const confirm = record('confirm')
const chart = { bar: (day, settlements) => record('chart.bar')(settlements) }
const render = record('render')
const unrender = record('unrender')
const csv = { write: record('csv.write') }
${declared('createWriteStream') ? '' : 'const createWriteStream = __createWriteStream'}
${declared('once') ? '' : 'const once = __once'}
${declared('readFileSync') ? '' : 'const readFileSync = __read'}
const account = __account(${JSON.stringify(given.__payerKey)})
${browser ? `const __store = new Map(); globalThis.localStorage = { getItem: (k) => __store.get(k) ?? null, setItem: (k, v) => void __store.set(k, String(v)) }` : ''}
${code.replaceAll("'settlement-explorer/sdk'", JSON.stringify(sdk))}
const __checks = [${expected.join(', ')}]
const __until = Date.now() + 30000
while (!__checks.every((check) => { try { return check() } catch { return false } })) {
  if (Date.now() > __until) { console.error('not done: ' + __checks.filter((c) => { try { return !c() } catch { return true } }).map(String).join('; ') + ' calls: ' + JSON.stringify(calls)); process.exit(2) }
  await new Promise((resolve) => setTimeout(resolve, 100))
}
process.exit(0)
`
}

function run(file: string): Promise<{ code: number | null; output: string }> {
  const child = spawn(process.execPath, ['--import', 'tsx', file], { cwd: workDir, env: { ...process.env, TSX_TSCONFIG_PATH: join(repoRoot, 'tsconfig.json') }, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => (output += chunk))
  child.stderr.on('data', (chunk: Buffer) => (output += chunk))
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000)
  return new Promise((resolve) => child.once('close', (code) => (clearTimeout(timer), resolve({ code, output }))))
}

test('every ts sample of docs/sdk.md runs in Node against a real explorer (and gateway), doing what it says', { timeout: 600_000 }, async () => {
  const codes = samples()
  assert.ok(codes.length >= 11, `${codes.length} samples`)
  const [explorerA, explorerB] = explorers as [TestExplorer, TestExplorer]
  const target = (await explorerA.get('/events?limit=1')).body.events[0] as Settlement
  const directory = await readDirectory({ publicClient: createChainClient({ rpcUrl: chain.rpcUrl }), settlementContract: chain.deployment.settlementContract, fromBlock: BigInt(chain.deployment.startBlock) })
  const usdc = directory.tokens.find((t) => t.symbol === 'USDC')!
  const given = {
    __explorerUrl: explorerA.url,
    __payerKey: chain.deployment.payerKeys[0],
    merchantWallet: target.recipient,
    merchant: target.recipient,
    recipient: target.recipient,
    fromTimestamp: 0,
    toTimestamp: Math.floor(Date.now() / 1000) + 3600,
    orderReference: target.orderReference,
    orderId: 'order-1001',
    usdc: usdc.address,
    token: { name: usdc.name, version: usdc.version, domainSeparator: usdc.domainSeparator },
    session: {
      token: usdc.address,
      beneficiary: chain.deployment.recipients[1],
      principal: '2500000',
      orderReference: `0x${randomBytes(16).toString('hex')}`,
      acquirerId: `0x${'0'.repeat(32)}`,
      deadline: Math.floor(Date.now() / 1000) + 600,
      chainId: chain.deployment.chainId,
      settlementContract: chain.deployment.settlementContract,
      walletGatewayUrl: gateway.wsUrl,
    },
  }
  const failures: string[] = []
  for (const [i, code] of codes.entries()) {
    const text = code
      .replaceAll('http://127.0.0.1:4001', explorerA.url)
      .replaceAll('https://explorer-a.example.com', explorerA.url)
      .replaceAll('https://explorer-b.example.com', explorerB.url)
      .replaceAll('ws://127.0.0.1:4000/ws', gateway.wsUrl)
    const file = join(workDir, `sample-${i}.ts`)
    writeFileSync(file, script(text, given))
    // A live sample renders what arrives while it listens: settlements keep coming until it is done.
    let running = true
    const traffic = (async () => {
      while (running) {
        if (/onSettlement/.test(text)) await sendSettlements(chain, 1, { recipient: () => target.recipient })
        await new Promise((resolve) => setTimeout(resolve, 300))
      }
    })()
    const result = await run(file)
    running = false
    await traffic
    if (result.code !== 0) failures.push(`sample ${i + 1}:\n${code}\n-> exit ${result.code}: ${result.output.slice(-1500)}`)
  }
  assert.deepEqual(failures, [])
})
