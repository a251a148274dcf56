/**
 * `GET /events/export` on a real explorer indexing a real anvil chain while payments keep arriving:
 * at a fixed `toBlock` the CSV and NDJSON files equal the paged `/events` answer field for field (and the
 * chain's own logs), with and without filters, in both orders; the CSV is RFC 4180 with the documented
 * header and human columns; the SDK's `exportEvents` streams the same file; bad parameters are a 400
 * problem before any byte of a file. Issue 38 item 5: a token whose `symbol()` a spreadsheet would run as
 * a formula is written with an apostrophe in front, and with it dropped the row still equals `/events`.
 */
import assert from 'node:assert/strict'
import { after, before, describe, test } from 'node:test'
import { encodeFunctionData } from 'viem'
import { stablecoinAbi } from '../../src/chain/abi/stablecoin-abi.js'
import { createChainClient } from '../../src/chain/create-chain-client.js'
import { createTxSender } from '../../src/chain/tx/create-tx-sender.js'
import { localDeployerKey } from '../../src/config/local-keys.js'
import { deployStablecoin } from '../../src/devnet/deploy/deploy-stablecoin.js'
import { ExplorerApiError, ExplorerClient, type Settlement } from '../../src/sdk/index.js'
import { pageThrough, settlementsOnChain, startTestExplorer, waitFor, waitForHead, type TestExplorer, payerAddress, sendSettlements, startLocalChain, type LocalChain } from '../../src/devnet/testing/index.js'
import { startTraffic, type Traffic } from '../sdk/live-fixture.js'

let chain: LocalChain
let explorer: TestExplorer
let traffic: Traffic
/** The block every export below ends at, while later blocks keep arriving. */
let toBlock: number

before(async () => {
  chain = await startLocalChain()
  await sendSettlements(chain, 40, { principal: (i) => 1_000_000n * BigInt(1 + ((i * 37) % 50)) + BigInt(i) })
  explorer = await startTestExplorer(chain)
  await waitForHead(chain, explorer.url)
  toBlock = (await explorer.get('/')).body.indexedHead.blockNumber
  traffic = startTraffic(chain, {})
  await traffic.batches(1)
})

after(async () => {
  await traffic?.stop()
  await explorer?.stop()
  await chain?.stop()
})

const SETTLEMENT_COLUMNS = ['txHash', 'blockNumber', 'logIndex', 'timestamp', 'token', 'tokenSymbol', 'tokenDecimals', 'payer', 'recipient', 'amount', 'fee', 'orderReference', 'acquirerId', 'domainSeparator'] as const
const HUMAN_COLUMNS = ['timeUtc', 'amountDecimal', 'feeDecimal']

/** RFC 4180: CRLF between records, fields quoted when they hold a comma, quote or line break. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = []
  let row: string[] = []
  let field = ''
  let quoted = false
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') (field += '"'), i++
      else if (c === '"') quoted = false
      else field += c
    } else if (c === '"') quoted = true
    else if (c === ',') row.push(field), (field = '')
    else if (c === '\r' && text[i + 1] === '\n') row.push(field), rows.push(row), (row = []), (field = ''), i++
    else if (c === '\n') assert.fail('a bare LF outside quotes: not RFC 4180')
    else field += c
  }
  assert.equal(field, '', 'the file ends with CRLF')
  assert.equal(row.length, 0)
  return rows
}

/** A CSV row back into the `/events` object, numbers as numbers; the human columns checked against it. */
function settlementOf(header: string[], row: string[]): Settlement {
  assert.equal(row.length, header.length)
  const cell = (name: string) => row[header.indexOf(name)]!
  const e = Object.fromEntries(SETTLEMENT_COLUMNS.map((c) => [c, cell(c)])) as Record<string, string | number>
  for (const n of ['blockNumber', 'logIndex', 'timestamp', 'tokenDecimals'] as const) e[n] = Number(e[n])
  const s = e as unknown as Settlement
  assert.equal(cell('timeUtc'), new Date(s.timestamp * 1000).toISOString())
  const units = (decimal: string) => BigInt(decimal.replace('.', '')).toString()
  assert.equal(units(cell('amountDecimal')), s.amount)
  assert.equal(cell('amountDecimal').split('.')[1]!.length, s.tokenDecimals)
  assert.equal(units(cell('feeDecimal')), s.fee)
  return s
}

async function exportFile(query: Record<string, string>): Promise<{ response: Response; text: string }> {
  const response = await fetch(`${explorer.url}/events/export?${new URLSearchParams(query)}`)
  return { response, text: await response.text() }
}

describe('GET /events/export while settlements keep arriving', () => {
  const filters: [string, () => Record<string, string>][] = [
    ['no filter', () => ({})],
    ['token + amount range', () => ({ token: chain.deployment.tokens[0]!.address, minAmount: '5000000', maxAmount: '40000000' })],
    ['recipient, oldest first', () => ({ recipient: chain.deployment.recipients[1]!, order: 'asc' })],
    ['address + timestamp bound + minAmount', () => ({ address: chain.deployment.recipients[0]!, fromTimestamp: '0', minAmount: '20000000' })],
  ]
  for (const [name, query] of filters) {
    test(`${name}: CSV and NDJSON equal the paged /events answer at a fixed toBlock, field for field`, async () => {
      const q = { ...query(), toBlock: String(toBlock) }
      const pages = await pageThrough(explorer.url, { ...q, limit: '9' })
      assert.ok(pages.events.length > 0)

      const ndjson = await exportFile({ ...q, format: 'ndjson' })
      assert.equal(ndjson.response.status, 200)
      assert.equal(ndjson.response.headers.get('content-type'), 'application/x-ndjson')
      assert.ok(ndjson.text.endsWith('\n'))
      assert.deepEqual(ndjson.text.trimEnd().split('\n').map((line) => JSON.parse(line)), pages.events)

      const csv = await exportFile({ ...q, format: 'csv' })
      assert.equal(csv.response.status, 200)
      assert.equal(csv.response.headers.get('content-type'), 'text/csv; charset=utf-8')
      const disposition = csv.response.headers.get('content-disposition') ?? ''
      assert.match(disposition, /^attachment; filename="settlements_[A-Za-z0-9_.-]+_head-\d+\.csv"$/)
      assert.match(disposition, new RegExp(`_toBlock-${toBlock}_`))
      const [header, ...rows] = parseCsv(csv.text)
      assert.deepEqual(header, [...SETTLEMENT_COLUMNS, ...HUMAN_COLUMNS])
      assert.deepEqual(rows.map((row) => settlementOf(header!, row)), pages.events)
    })
  }

  test('the unfiltered file equals the chain’s own logs up to toBlock', async () => {
    const onChain = (await settlementsOnChain(chain)).filter((e) => e.blockNumber <= toBlock)
    const { text } = await exportFile({ format: 'ndjson', order: 'asc', toBlock: String(toBlock) })
    assert.deepEqual(text.trimEnd().split('\n').map((line) => JSON.parse(line)), onChain)
    assert.ok((await settlementsOnChain(chain)).length > onChain.length, 'traffic kept arriving')
  })

  test('the SDK streams the same file chunk by chunk, and refuses a bad query with ExplorerApiError', async () => {
    const client = new ExplorerClient({ baseUrl: explorer.url })
    const q = { token: chain.deployment.tokens[1]!.address, maxAmount: '30000000', toBlock }
    let text = ''
    for await (const chunk of client.exportEvents(q, { format: 'ndjson' })) text += chunk
    const pages = await pageThrough(explorer.url, { token: q.token, maxAmount: q.maxAmount, toBlock: String(toBlock) })
    assert.deepEqual(text.trimEnd().split('\n').map((line) => JSON.parse(line)), pages.events)
    let csv = ''
    for await (const chunk of client.exportEvents(q, { format: 'csv' })) csv += chunk
    assert.equal(parseCsv(csv).length, pages.events.length + 1)
    await assert.rejects(
      async () => {
        for await (const _ of client.exportEvents({ minAmount: '-5' }, { format: 'csv' })) assert.fail('no byte of a file')
      },
      (error: unknown) => error instanceof ExplorerApiError && error.status === 400 && error.problem.param === 'minAmount',
    )
  })

  test('bad parameters are a 400 problem naming the parameter, before any byte of a file', async () => {
    const cases: [Record<string, string>, string][] = [
      [{}, 'format'],
      [{ format: 'xlsx' }, 'format'],
      [{ format: 'CSV' }, 'format'],
      [{ format: 'csv', limit: '10' }, 'limit'],
      [{ format: 'csv', cursor: 'abc' }, 'cursor'],
      [{ format: 'csv', order: 'newest' }, 'order'],
      [{ format: 'ndjson', token: '0x12' }, 'token'],
      [{ format: 'ndjson', fromBlock: '9', toBlock: '3' }, 'fromBlock'],
      [{ format: 'ndjson', minAmount: '7', maxAmount: '6' }, 'minAmount'],
    ]
    for (const [query, param] of cases) {
      const { response, text } = await exportFile(query)
      assert.equal(response.status, 400, JSON.stringify(query))
      assert.match(response.headers.get('content-type') ?? '', /^application\/problem\+json/)
      assert.equal(response.headers.get('content-disposition'), null)
      assert.equal((JSON.parse(text) as { param: string }).param, param, JSON.stringify(query))
    }
  })

  test('a token symbol a spreadsheet would run as a formula gets an apostrophe in front; dropped, the row equals /events', async () => {
    const symbol = '=HYPERLINK("http://evil.example/?a=1,2","Statement")'
    // The deployer deploys, mints and relays: the traffic's relayer keeps its nonces to itself.
    const publicClient = createChainClient({ rpcUrl: chain.rpcUrl, pollingIntervalMs: 50 })
    const owner = await createTxSender({ publicClient, privateKey: localDeployerKey, chainId: chain.deployment.chainId })
    const token = await deployStablecoin({ publicClient, sender: owner, name: 'Formula Coin', symbol })
    const mint = await owner.send({ to: token.address, data: encodeFunctionData({ abi: stablecoinAbi, functionName: 'mint', args: [payerAddress(chain, 0), 10n ** 12n] }), gas: 100_000n })
    await publicClient.waitForTransactionReceipt({ hash: mint })
    await sendSettlements({ ...chain, deployment: { ...chain.deployment, tokens: [token], payerKeys: [chain.deployment.payerKeys[0]!], relayerKey: localDeployerKey } }, 2)
    const q = { token: token.address }
    const events = await waitFor('the explorer to index both', async () => {
      const { events } = await pageThrough(explorer.url, q)
      return events.length === 2 && events
    })
    assert.equal(events[0]!.tokenSymbol, symbol)

    const { text } = await exportFile({ ...q, format: 'csv' })
    assert.equal(text.split(`,"'=HYPERLINK(""http://evil.example/?a=1,2"",""Statement"")",`).length, 3, text)
    const [header, ...rows] = parseCsv(text)
    for (const row of rows) {
      row.forEach((cell, i) => {
        assert.ok(!/^[=+\-@\t\r]/.test(cell), `${header![i]}: ${cell} starts as a formula`)
        assert.ok(!cell.startsWith("'") || header![i] === 'tokenSymbol', `an apostrophe in ${header![i]}`)
      })
    }
    // The documented way back: drop one leading apostrophe.
    const read = rows.map((row) => row.map((cell) => (cell.startsWith("'") ? cell.slice(1) : cell)))
    assert.deepEqual(read.map((row) => settlementOf(header!, row)), events)
  })
})
