/** Owner-only settings: each takes effect at once, emits its event, and refuses everyone but the owner. */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createWalletClient, http, toFunctionSelector, zeroAddress, type Hex } from 'viem'
import { settlementAbi, settlementBytecode } from '../../src/chain/abi/settlement-abi.js'
import { eventsOf, setupContractFixture, type ContractFixture } from './fixture.js'

describe('admin', () => {
  let f: ContractFixture
  before(async () => {
    f = await setupContractFixture()
  })
  after(() => f.chain.stop())

  const setters = [
    { functionName: 'setBaseFeeAmount', value: 3_000_000n, read: 'baseFeeAmount', event: 'BaseFeeAmountUpdated' },
    { functionName: 'setAcquiringPrice', value: 50_000_000n, read: 'acquiringPrice', event: 'AcquiringPriceUpdated' },
    { functionName: 'setMaxAcquiringFee', value: 200n, read: 'maxAcquiringFee', event: 'MaxAcquiringFeeUpdated' },
  ] as const

  for (const { functionName, value, read, event } of setters) {
    it(`${functionName}: owner only, emits ${event}, read back by ${read}()`, async () => {
      await f.expectRevert(f.stranger, { functionName, args: [value] }, 'OwnableUnauthorizedAccount', [f.stranger.address])
      const receipt = await f.send(f.owner, { functionName, args: [value] })
      assert.deepEqual(Object.values(eventsOf(receipt, event)[0]?.args ?? {}), [value])
      assert.equal(await f.read<bigint>({ functionName: read }), value)
    })
  }

  it('applies a new base fee and a lower maximum to the very next fee calculation', async () => {
    const acquirer = f.acquirers[1]! // 250 bps, now capped at the maximum of 200 set above
    assert.equal(await f.read<bigint>({ functionName: 'calculateFees', args: [10_000n, acquirer.id] }), 3_000_000n + 200n)
  })

  it('setMaxAcquiringFee refuses more than 100 %', async () => {
    await f.expectRevert(f.owner, { functionName: 'setMaxAcquiringFee', args: [10_001n] }, 'FeePercentTooHigh', [10_001n, 10_000n])
  })

  it('setFeeRecipient: owner only, not zero, emits FeeRecipientUpdated; the old recipient keeps its balance', async () => {
    const next = f.stranger.address
    await f.expectRevert(f.stranger, { functionName: 'setFeeRecipient', args: [next] }, 'OwnableUnauthorizedAccount')
    await f.expectRevert(f.owner, { functionName: 'setFeeRecipient', args: [zeroAddress] }, 'ZeroAddress')
    const before = await f.read<bigint[]>({ functionName: 'getBalances', args: [f.usdc, [f.owner.address, next]] })
    const receipt = await f.send(f.owner, { functionName: 'setFeeRecipient', args: [next] })
    assert.deepEqual(eventsOf(receipt, 'FeeRecipientUpdated')[0]?.args, { feeRecipient: next })
    assert.equal((await f.read<Hex>({ functionName: 'feeRecipient' })).toLowerCase(), next.toLowerCase())

    await f.send(f.stranger, { functionName: 'transferWithPermit', args: await f.transferArgs({ payer: f.payers[0]! }) })
    const after = await f.read<bigint[]>({ functionName: 'getBalances', args: [f.usdc, [f.owner.address, next]] })
    assert.deepEqual(after, [before[0], before[1]! + 3_000_000n])
    await f.send(f.owner, { functionName: 'setFeeRecipient', args: [f.owner.address] })
  })

  it('addAcquiringAllowedToken: owner only, not zero, emits AcquiringAllowedTokenAdded', async () => {
    const token = f.payers[5]!.address
    await f.expectRevert(f.stranger, { functionName: 'addAcquiringAllowedToken', args: [token] }, 'OwnableUnauthorizedAccount')
    await f.expectRevert(f.owner, { functionName: 'addAcquiringAllowedToken', args: [zeroAddress] }, 'ZeroAddress')
    assert.equal(await f.read<boolean>({ functionName: 'acquiringAllowedTokens', args: [token] }), false)
    const receipt = await f.send(f.owner, { functionName: 'addAcquiringAllowedToken', args: [token] })
    assert.deepEqual(eventsOf(receipt, 'AcquiringAllowedTokenAdded')[0]?.args, { token })
    assert.equal(await f.read<boolean>({ functionName: 'acquiringAllowedTokens', args: [token] }), true)
  })

  it('the constructor refuses a maximum above 100 % and a zero fee recipient', async () => {
    const wallet = createWalletClient({ account: f.owner, transport: http(f.chain.rpcUrl) })
    const deploy = (max: bigint, recipient: Hex) =>
      wallet.deployContract({ chain: null, abi: settlementAbi, bytecode: settlementBytecode, args: [1n, max, 1n, recipient, []] })
    // Constructor reverts carry no function ABI to decode against: match the custom error's selector.
    const revertsWith = (signature: string) => (error: unknown) => String(error).includes(toFunctionSelector(signature))
    await assert.rejects(deploy(10_001n, f.owner.address), revertsWith('FeePercentTooHigh(uint256,uint256)'))
    await assert.rejects(deploy(500n, zeroAddress), revertsWith('ZeroAddress()'))
  })

  it('exposes its deployment state: owner, fee recipient, allowed tokens', async () => {
    assert.equal(await f.read<Hex>({ functionName: 'owner' }), f.owner.address)
    assert.equal(await f.read<boolean>({ functionName: 'acquiringAllowedTokens', args: [f.eurc] }), true)
  })
})
