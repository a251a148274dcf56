/** The test helper other suites build on: a devnet on a free port and real, varied settlements. */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { parseEventLogs } from 'viem'
import { settlementAbi } from '../../src/chain/abi/settlement-abi.js'
import { ZERO_BYTES16 } from '../../src/wire/order-reference.js'
import { sendSettlements, startLocalChain, type LocalChain } from '../../src/devnet/testing/index.js'

describe('local chain helper', () => {
  let chain: LocalChain
  before(async () => {
    chain = await startLocalChain({ blockTime: 1 })
  })
  after(() => chain.stop())

  it('sends n settlements across payers, tokens and recipients, some with an acquirer', async () => {
    const sent = await sendSettlements(chain, 30)
    assert.equal(sent.length, 30)
    const events = sent.flatMap((s) => parseEventLogs({ abi: settlementAbi, eventName: 'PermittedTransfer', logs: s.receipt.logs }))
    assert.equal(events.length, 30)
    assert.equal(new Set(sent.map((s) => s.orderReference)).size, 30)
    assert.equal(new Set(sent.map((s) => s.token)).size, chain.deployment.tokens.length)
    assert.ok(sent.some((s) => s.acquirerId !== ZERO_BYTES16) && sent.some((s) => s.acquirerId === ZERO_BYTES16))
    // Interval mining: many settlements share a block.
    assert.ok(new Set(sent.map((s) => s.receipt.blockNumber)).size < 30)
  })
})
