/** buyAcquiringPack and updateAcquiringFee: registration, ids, the price, and every refusal. */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { zeroAddress, type Hex, type LocalAccount } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { stablecoinAbi } from '../../src/chain/abi/stablecoin-abi.js'
import { createPermitTracker } from '../../src/chain/payments/permit-tracker.js'
import { signPermitPair } from '../../src/wire/sign-permit-pair.js'
import { buyAcquiringPackTypes } from '../../src/wire/typed-data.js'
import { eventsOf, setupContractFixture, type ContractFixture } from './fixture.js'

const PRICE = 100_000_000n

describe('acquiring packs', () => {
  let f: ContractFixture
  before(async () => {
    f = await setupContractFixture()
  })
  after(() => f.chain.stop())

  /** buyAcquiringPack arguments, each part overridable to make it wrong. */
  async function packArgs(opts: {
    payer: LocalAccount
    acquiring?: Hex
    feePercent?: bigint
    price?: bigint
    token?: Hex
    deadline?: bigint
    bindingSigner?: LocalAccount
  }) {
    const token = opts.token ?? f.usdc
    const acquiring = opts.acquiring ?? opts.payer.address
    const feePercent = opts.feePercent ?? 150n
    const price = opts.price ?? PRICE
    const deadline = opts.deadline ?? (await f.now()) + 3600n
    const tokenDomain = await createPermitTracker(f.publicClient).tokenDomain(f.usdc)
    const nonce = await f.read<bigint>({ address: f.usdc, abi: stablecoinAbi, functionName: 'nonces', args: [opts.payer.address] })
    const permit = { owner: opts.payer.address, spender: f.settlement, value: price, nonce, deadline }
    const binding = {
      types: buyAcquiringPackTypes,
      primaryType: 'BuyAcquiringPackPermitParams' as const,
      message: { token, feeValue: feePercent, acquiring, permitParams: permit },
    }
    const sign = (signer: LocalAccount) =>
      signPermitPair({ payer: signer, tokenDomain, permit, settlementContract: f.settlement, binding })
    const sigs = await sign(opts.payer)
    const bindingSigs = opts.bindingSigner ? await sign(opts.bindingSigner) : sigs
    return [
      token, opts.payer.address, acquiring, feePercent, price, deadline,
      sigs.v1, sigs.r1, sigs.s1, bindingSigs.v2, bindingSigs.r2, bindingSigs.s2,
    ] as const
  }

  it('registers acquirers with fresh, unique, non-zero ids and charges the price to the fee recipient', async () => {
    const payer = f.payers[0]!
    const feesBefore = (await f.read<bigint[]>({ functionName: 'getBalances', args: [f.usdc, [f.owner.address]] }))[0]!
    const ids: Hex[] = []
    for (const feePercent of [0n, 500n]) {
      const receipt = await f.send(f.stranger, { functionName: 'buyAcquiringPack', args: await packArgs({ payer, feePercent }) })
      const [created] = eventsOf(receipt, 'AcquirerCreated')
      assert.equal(created?.args.wallet, payer.address)
      assert.equal(created?.args.feePercent, feePercent)
      const id = created!.args.acquirerId
      assert.notEqual(id, `0x${'0'.repeat(32)}`)
      assert.equal(await f.read<Hex>({ functionName: 'getAcquiringWallet', args: [id] }), payer.address)
      assert.equal(await f.read<bigint>({ functionName: 'getAcquiringFee', args: [id] }), feePercent)
      ids.push(id)
    }
    assert.equal(new Set([...ids, ...f.acquirers.map((a) => a.id)]).size, ids.length + f.acquirers.length)
    const feesAfter = (await f.read<bigint[]>({ functionName: 'getBalances', args: [f.usdc, [f.owner.address]] }))[0]!
    assert.equal(feesAfter - feesBefore, 2n * PRICE)
  })

  it('reports the zero wallet for the zero or an unknown acquirer id', async () => {
    assert.equal(await f.read<Hex>({ functionName: 'getAcquiringWallet', args: [`0x${'0'.repeat(32)}`] }), zeroAddress)
  })

  it('refuses a token that is not allowed', async () => {
    const other = privateKeyToAccount(generatePrivateKey()).address
    const args = await packArgs({ payer: f.payers[1]!, token: other })
    await f.expectRevert(f.stranger, { functionName: 'buyAcquiringPack', args }, 'TokenNotAllowed', [other])
  })

  it('refuses the zero acquiring wallet', async () => {
    const args = await packArgs({ payer: f.payers[1]!, acquiring: zeroAddress })
    await f.expectRevert(f.stranger, { functionName: 'buyAcquiringPack', args }, 'ZeroAddress')
  })

  it('refuses a fee above maxAcquiringFee', async () => {
    const args = await packArgs({ payer: f.payers[1]!, feePercent: 501n })
    await f.expectRevert(f.stranger, { functionName: 'buyAcquiringPack', args }, 'FeePercentTooHigh', [501n, 500n])
  })

  it('refuses a price other than acquiringPrice', async () => {
    const args = await packArgs({ payer: f.payers[1]!, price: PRICE - 1n })
    await f.expectRevert(f.stranger, { functionName: 'buyAcquiringPack', args }, 'PriceMismatch', [PRICE - 1n, PRICE])
  })

  it('refuses an expired deadline', async () => {
    const deadline = (await f.now()) - 1n
    const args = await packArgs({ payer: f.payers[1]!, deadline })
    await f.expectRevert(f.stranger, { functionName: 'buyAcquiringPack', args }, 'DeadlineExpired', [deadline])
  })

  it('refuses a binding signature from someone other than the payer, and a replay', async () => {
    const payer = f.payers[1]!
    const forged = await packArgs({ payer, bindingSigner: f.stranger })
    await f.expectRevert(f.stranger, { functionName: 'buyAcquiringPack', args: forged }, 'InvalidBindingSigner', [
      f.stranger.address,
      payer.address,
    ])
    const args = await packArgs({ payer })
    await f.send(f.stranger, { functionName: 'buyAcquiringPack', args })
    await f.expectRevert(f.stranger, { functionName: 'buyAcquiringPack', args }, 'InvalidBindingSigner')
  })

  it('lets only the acquirer wallet update its fee, within the maximum', async () => {
    const acquirer = f.acquirers[0]!
    const receipt = await f.send(acquirer.wallet, { functionName: 'updateAcquiringFee', args: [acquirer.id, 300n] })
    assert.deepEqual(eventsOf(receipt, 'AcquiringFeeUpdated')[0]?.args, { acquiring: acquirer.wallet.address, feePercent: 300n })
    assert.equal(await f.read<bigint>({ functionName: 'calculateFees', args: [10_000n, acquirer.id] }), 2_500_300n)
    await f.expectRevert(f.stranger, { functionName: 'updateAcquiringFee', args: [acquirer.id, 1n] }, 'NotAcquirerWallet', [
      acquirer.id,
      f.stranger.address,
    ])
    await f.expectRevert(acquirer.wallet, { functionName: 'updateAcquiringFee', args: [acquirer.id, 501n] }, 'FeePercentTooHigh', [
      501n,
      500n,
    ])
  })

  it('leaves a payment with the zero acquirer id free of acquirer fees', async () => {
    assert.equal(await f.read<bigint>({ functionName: 'calculateFees', args: [10n ** 12n, `0x${'0'.repeat(32)}`] }), 2_500_000n)
  })
})
