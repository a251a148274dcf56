import assert from 'node:assert/strict'
import { test } from 'node:test'
import { ScriptedChain, syntheticPayer, syntheticRecipient, syntheticToken } from '../../devnet/testing/index.js'
import { encodeBatch, encodeSettlements } from '../store/encoded-batch.js'
import type { Hex } from '../../wire/settlement.js'
import { classifyNodeError, RangeTooLargeError, RpcResponseError } from './node-errors.js'
import { decodeSettlementLog, type RawLog } from './decode-settlement-log.js'
import { ScannedLogs } from './scan-logs.js'

const CONTRACT = '0x00000000000000000000000000000000000c0de1' as Hex

async function someLogs(): Promise<RawLog[]> {
  const chain = new ScriptedChain({ contract: CONTRACT })
  for (let b = 1; b <= 5; b++) {
    chain.mine(
      Array.from({ length: b }, (_, i) => {
        const token = syntheticToken(i % 2)
        const payer = syntheticPayer(i)
        return {
          token,
          payer,
          recipient: i === 2 ? payer : syntheticRecipient(b),
          amount: i === 1 ? 2n ** 255n + BigInt(b) : BigInt(b * 1000 + i),
          fee: i === 3 ? 2n ** 60n : 25n,
          reference: `0x${b.toString(16).padStart(32, '0')}${'ac'.padEnd(32, String(i))}` as Hex,
          domainSeparator: `0x${token.slice(2).padEnd(64, 'd')}` as Hex,
        }
      }),
    )
  }
  return chain.source().settlementLogs(1, 5)
}

const head = { blockNumber: 5, blockHash: `0x${'ab'.repeat(32)}` as Hex }

/** What the object path makes of the same logs. */
function expected(logs: RawLog[]) {
  const decoded = logs.filter((l) => !l.removed).map(decodeSettlementLog)
  const records = decoded.map((d) => ({ ...d, timestamp: d.blockTimestamp! }))
  const blocks = [...new Map(decoded.map((d) => [d.blockNumber, { blockNumber: d.blockNumber, blockHash: d.blockHash, timestamp: d.blockTimestamp! }])).values()]
  return encodeBatch(records, blocks, head)
}

function scanned(body: string) {
  const logs = new ScannedLogs(Buffer.from(body))
  const blocks = new Map<number, { blockNumber: number; blockHash: Hex; timestamp: number }>()
  for (let i = 0; i < logs.count; i++) {
    blocks.set(logs.blockNumber(i), { blockNumber: logs.blockNumber(i), blockHash: logs.blockHash(i) as Hex, timestamp: logs.stampedTimestamp(i)! })
  }
  return encodeSettlements(logs.withTimestamps(new Map()), [...blocks.values()], head)
}

test('a response scanned from its bytes makes the same batch as its logs decoded one by one', async () => {
  const logs = await someLogs()
  assert.deepEqual(scanned(JSON.stringify({ jsonrpc: '2.0', id: 1, result: logs })), expected(logs))
})

test('whitespace, member order, upper-case hex, unknown members and removed logs are read as a node may send them', async () => {
  const logs = await someLogs()
  const shuffled = logs.map((log, i) => {
    const members = Object.entries({ ...log, transactionIndex: '0x1', extra: { nested: [1, 'x', null, true] }, removed: i === 3 }).reverse()
    const upper = members.map(([k, v]) => [k, typeof v === 'string' && k !== 'transactionHash' ? v.replace(/[a-f]/g, (c) => c.toUpperCase()).replace(/^0X/, '0x') : v])
    return Object.fromEntries(upper) as RawLog
  })
  const body = JSON.stringify({ result: shuffled, id: 7, jsonrpc: '2.0' }, null, 2)
  assert.deepEqual(scanned(body), expected(logs.map((log, i) => ({ ...log, removed: i === 3 }))))
})

test('an error answer is reported with the node\'s message, so that a range too large is recognised', () => {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, error: { code: -32005, message: 'query returned more than 10000 results' } })
  assert.throws(
    () => new ScannedLogs(Buffer.from(body)),
    (error: Error) => error instanceof RpcResponseError && classifyNodeError(error, { from: 1, to: 2 }) instanceof RangeTooLargeError,
  )
})

test('a log of another event, or a malformed one, is refused', async () => {
  const [log] = await someLogs()
  const other = { ...log!, topics: [`0x${'11'.repeat(32)}`, ...log!.topics.slice(1)] }
  assert.throws(() => new ScannedLogs(Buffer.from(JSON.stringify({ result: [other] }))), /is not a PermittedTransfer/)
  const short = { ...log!, data: log!.data.slice(0, -2) }
  assert.throws(() => new ScannedLogs(Buffer.from(JSON.stringify({ result: [short] }))), /is not a PermittedTransfer/)
  assert.throws(() => new ScannedLogs(Buffer.from('{"result":[{"data":')), /not JSON|ends inside/)
})

test('strings with escaped quotes and backslashes in other members are skipped whole', async () => {
  const logs = await someLogs()
  const noisy = logs.map((log) => ({ note: 'a "quoted" \\ back\\\\slash \\"', ...log }))
  assert.deepEqual(scanned(JSON.stringify({ result: noisy })), expected(logs))
})
