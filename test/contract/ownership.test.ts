/**
 * Two-step ownership (OpenZeppelin Ownable2Step): the owner names a pending owner, who must accept; until
 * then the old owner keeps every right, and nobody else can accept or start a transfer.
 */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { zeroAddress, type Hex } from 'viem'
import { eventsOf, setupContractFixture, type ContractFixture } from './fixture.js'

describe('two-step ownership', () => {
  let f: ContractFixture
  before(async () => {
    f = await setupContractFixture()
  })
  after(() => f.chain.stop())

  const owner = () => f.read<Hex>({ functionName: 'owner' })
  const pending = () => f.read<Hex>({ functionName: 'pendingOwner' })

  it('transferOwnership only names a pending owner: the owner stays in charge until it accepts', async () => {
    const next = f.payers[0]!
    await f.expectRevert(f.stranger, { functionName: 'transferOwnership', args: [next.address] }, 'OwnableUnauthorizedAccount', [f.stranger.address])
    const receipt = await f.send(f.owner, { functionName: 'transferOwnership', args: [next.address] })
    assert.deepEqual(eventsOf(receipt, 'OwnershipTransferStarted')[0]?.args, { previousOwner: f.owner.address, newOwner: next.address })
    assert.equal(await owner(), f.owner.address)
    assert.equal(await pending(), next.address)
    // The old owner still administers; the pending one does not yet.
    await f.send(f.owner, { functionName: 'setBaseFeeAmount', args: [2_600_000n] })
    await f.expectRevert(next, { functionName: 'setBaseFeeAmount', args: [1n] }, 'OwnableUnauthorizedAccount', [next.address])
  })

  it('only the pending owner can accept', async () => {
    await f.expectRevert(f.stranger, { functionName: 'acceptOwnership' }, 'OwnableUnauthorizedAccount', [f.stranger.address])
    await f.expectRevert(f.owner, { functionName: 'acceptOwnership' }, 'OwnableUnauthorizedAccount', [f.owner.address])
  })

  it('a second transferOwnership replaces the pending owner, and zero cancels it', async () => {
    await f.send(f.owner, { functionName: 'transferOwnership', args: [f.payers[1]!.address] })
    await f.expectRevert(f.payers[0]!, { functionName: 'acceptOwnership' }, 'OwnableUnauthorizedAccount', [f.payers[0]!.address])
    await f.send(f.owner, { functionName: 'transferOwnership', args: [zeroAddress] })
    assert.equal(await pending(), zeroAddress)
    await f.expectRevert(f.payers[1]!, { functionName: 'acceptOwnership' }, 'OwnableUnauthorizedAccount', [f.payers[1]!.address])
  })

  it('acceptOwnership moves ownership, clears the pending owner, and the old owner loses its rights', async () => {
    const next = f.payers[2]!
    await f.send(f.owner, { functionName: 'transferOwnership', args: [next.address] })
    const receipt = await f.send(next, { functionName: 'acceptOwnership' })
    assert.deepEqual(eventsOf(receipt, 'OwnershipTransferred')[0]?.args, { previousOwner: f.owner.address, newOwner: next.address })
    assert.equal(await owner(), next.address)
    assert.equal(await pending(), zeroAddress)
    await f.expectRevert(f.owner, { functionName: 'setBaseFeeAmount', args: [1n] }, 'OwnableUnauthorizedAccount', [f.owner.address])
    await f.send(next, { functionName: 'setBaseFeeAmount', args: [2_700_000n] })
    assert.equal(await f.read<bigint>({ functionName: 'baseFeeAmount' }), 2_700_000n)
  })
})
