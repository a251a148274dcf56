/** TestStablecoin: 6 decimals, ERC-2612 permit, minting by its owner only. */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import type { Hex } from 'viem'
import { stablecoinAbi } from '../../src/chain/abi/stablecoin-abi.js'
import { createPermitTracker } from '../../src/chain/payments/permit-tracker.js'
import { permitTypes } from '../../src/wire/typed-data.js'
import { setupContractFixture, type ContractFixture } from './fixture.js'

describe('TestStablecoin', () => {
  let f: ContractFixture
  before(async () => {
    f = await setupContractFixture()
  })
  after(() => f.chain.stop())

  it('has 6 decimals and its deployment name and symbol', async () => {
    assert.equal(await f.read<number>({ address: f.usdc, abi: stablecoinAbi, functionName: 'decimals' }), 6)
    assert.equal(await f.read<string>({ address: f.eurc, abi: stablecoinAbi, functionName: 'symbol' }), 'EURC')
  })

  it('mints for its owner only', async () => {
    const call = { address: f.usdc, abi: stablecoinAbi, functionName: 'mint', args: [f.stranger.address, 5n] } as const
    await f.expectRevert(f.stranger, call, 'OwnableUnauthorizedAccount', [f.stranger.address])
    await f.send(f.owner, call)
    assert.equal(await f.read<bigint>({ address: f.usdc, abi: stablecoinAbi, functionName: 'balanceOf', args: [f.stranger.address] }), 5n)
  })

  it('accepts an ERC-2612 permit signed over its ERC-5267 domain', async () => {
    const owner = f.payers[0]!
    const domain = await createPermitTracker(f.publicClient).tokenDomain(f.usdc)
    const nonce = await f.read<bigint>({ address: f.usdc, abi: stablecoinAbi, functionName: 'nonces', args: [owner.address] })
    const permit = { owner: owner.address, spender: f.stranger.address, value: 77n, nonce, deadline: (await f.now()) + 60n }
    const signature = await owner.signTypedData({ domain, types: permitTypes, primaryType: 'Permit', message: permit })
    const r = signature.slice(0, 66) as Hex
    const s = `0x${signature.slice(66, 130)}` as Hex
    const v = Number.parseInt(signature.slice(130, 132), 16)
    await f.send(f.stranger, {
      address: f.usdc,
      abi: stablecoinAbi,
      functionName: 'permit',
      args: [permit.owner, permit.spender, permit.value, permit.deadline, v, r, s],
    })
    assert.equal(
      await f.read<bigint>({ address: f.usdc, abi: stablecoinAbi, functionName: 'allowance', args: [owner.address, f.stranger.address] }),
      77n,
    )
  })
})
