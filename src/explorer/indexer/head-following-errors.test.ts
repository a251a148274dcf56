/**
 * Near the head, which failures the indexer retries: a node that fails a read is asked again until it
 * answers; a log that is not a settlement is the same log on every read, so indexing stops at it, with
 * the reason in the status and the log, instead of asking the node for it forever.
 */
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import { ScriptedChain, syntheticPayer, syntheticRecipient, syntheticToken } from '../../devnet/testing/index.js'
import { createLogger } from '../../platform/observability/logger.js'
import { Metrics } from '../../platform/observability/metrics.js'
import { readHead } from '../store/meta.js'
import { openStore } from '../store/open-store.js'
import type { Hex } from '../../wire/settlement.js'
import type { ChainSource } from './chain-source.js'
import { Indexer } from './indexer.js'

const CONTRACT = '0x00000000000000000000000000000000000c0de1' as Hex
const BAD_BLOCK = 4
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

async function waitFor(what: string, done: () => boolean, timeoutMs = 5_000): Promise<void> {
  const until = Date.now() + timeoutMs
  while (!done()) {
    if (Date.now() > until) assert.fail(`${what}: not within ${timeoutMs} ms`)
    await sleep(10)
  }
}

/** Six blocks of one settlement each, followed from block 1 (within the realtime window: block by block). */
function chainOfSix(): ScriptedChain {
  const chain = new ScriptedChain({ contract: CONTRACT })
  for (let b = 1; b <= 6; b++) {
    const token = syntheticToken(0)
    chain.mine([{ token, payer: syntheticPayer(b), recipient: syntheticRecipient(1), amount: BigInt(b), fee: 0n, reference: `0x${'0'.repeat(64)}`, domainSeparator: `0x${token.slice(2).padEnd(64, 'd')}` }])
  }
  return chain
}

async function follow(source: ChainSource, run: (indexer: Indexer, lines: { msg: string; error?: { name: string } }[], store: ReturnType<typeof openStore>) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'head-errors-'))
  const store = openStore({ path: dir, noSync: true })
  const lines: { msg: string; error?: { name: string } }[] = []
  const logger = createLogger('warn', {}, (line) => lines.push(JSON.parse(line)) > 0)
  const indexer = new Indexer({ store, source, logger, metrics: new Metrics(), startBlock: 1, confirmations: 0, pollIntervalMs: 5 })
  indexer.start()
  try {
    await run(indexer, lines, store)
  } finally {
    await indexer.stop()
    await store.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

test('a malformed log while following the head stops indexing at its block instead of being read again forever', async () => {
  const chain = chainOfSix()
  const honest = chain.source()
  let readsOfBadBlock = 0
  const source: ChainSource = {
    ...honest,
    async settlementLogs(from, to) {
      const logs = await honest.settlementLogs(from, to)
      if (from !== BAD_BLOCK) return logs
      readsOfBadBlock++
      return logs.map((log) => ({ ...log, data: '0x1234' as Hex }))
    },
  }
  await follow(source, async (indexer, lines) => {
    await waitFor('the indexer stops', () => lines.some((line) => line.msg.startsWith('indexing stopped')))
    const reads = readsOfBadBlock
    await sleep(700) // past two retries' backoff (250 ms, 500 ms), had it retried
    assert.equal(readsOfBadBlock, reads, 'the bad block was not read again')
    assert.equal(reads, 1)
    assert.ok(indexer.indexedBlock() < BAD_BLOCK, 'nothing from the bad block on is indexed')
    assert.match(indexer.status().lastError ?? '', /is not a PermittedTransfer/)
    assert.equal(lines.find((line) => line.msg.startsWith('indexing stopped'))?.error?.name, 'MalformedLogError')
  })
})

test('a node failing reads while following the head is asked again until it answers', async () => {
  const chain = chainOfSix()
  const honest = chain.source()
  let failures = 0
  const source: ChainSource = {
    ...honest,
    async header(blockNumber) {
      // A plain Error from outside, as fetch gives: the read is the node's to fail, so it is retried.
      if (blockNumber === BAD_BLOCK && failures < 2) throw Object.assign(new Error(`fetch failed (${++failures})`), { code: 'ECONNRESET' })
      return honest.header(blockNumber)
    },
  }
  await follow(source, async (indexer, lines, store) => {
    await waitFor('every block is indexed', () => readHead(store)?.blockNumber === 6)
    assert.equal(failures, 2)
    assert.deepEqual(
      lines.map((line) => [line.msg, line.error?.name]),
      [
        ['indexing step failed; retrying', 'NodeReadError'],
        ['indexing step failed; retrying', 'NodeReadError'],
      ],
    )
    await waitFor('the status shows no error', () => indexer.status().lastError === undefined)
  })
})
