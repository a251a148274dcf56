/** transferWithPermit: the settlement event, fee distribution, and every way it refuses to settle. */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'
import { createWalletClient, http, zeroAddress, type Hex } from 'viem'
import { privateKeyToAccount, generatePrivateKey } from 'viem/accounts'
import { stablecoinAbi } from '../../src/chain/abi/stablecoin-abi.js'
import { compileContracts } from '../../src/devnet/compile/compile-contracts.js'
import { randomBytes16, ZERO_BYTES16 } from '../../src/wire/order-reference.js'
import { eventsOf, setupContractFixture, type ContractFixture } from './fixture.js'

describe('transferWithPermit', () => {
  let f: ContractFixture
  before(async () => {
    f = await setupContractFixture()
  })
  after(() => f.chain.stop())

  const tokenBalance = (token: Hex, holder: Hex) =>
    f.read<bigint>({ address: token, abi: stablecoinAbi, functionName: 'balanceOf', args: [holder] })
  const internalBalance = async (token: Hex, holder: Hex) =>
    (await f.read<bigint[]>({ functionName: 'getBalances', args: [token, [holder]] }))[0]

  it('settles without an acquirer: principal to recipient, base fee to the fee recipient, one event', async () => {
    const payer = f.payers[0]!
    const recipient = f.chain.deployment.recipients[1]!
    const orderReference = randomBytes16()
    const args = await f.transferArgs({ payer, recipient, principal: 42_000_000n, orderReference })
    const [payerBefore, recipientBefore, feesBefore] = await Promise.all([
      tokenBalance(f.usdc, payer.address),
      tokenBalance(f.usdc, recipient),
      internalBalance(f.usdc, f.owner.address),
    ])
    const receipt = await f.send(f.stranger, { functionName: 'transferWithPermit', args })

    const [event, ...others] = eventsOf(receipt, 'PermittedTransfer')
    assert.equal(others.length, 0)
    const domainSeparator = await f.read<Hex>({ address: f.usdc, abi: stablecoinAbi, functionName: 'DOMAIN_SEPARATOR' })
    const fields = event!.args
    assert.deepEqual(
      { ...fields, token: fields.token.toLowerCase(), payer: fields.payer.toLowerCase(), recipient: fields.recipient.toLowerCase() },
      {
        domainSeparator,
        token: f.usdc,
        payer: payer.address.toLowerCase(),
        recipient,
        value: 42_000_000n,
        fee: 2_500_000n,
        orderReference: `${orderReference}${ZERO_BYTES16.slice(2)}`,
      },
    )
    assert.equal(eventsOf(receipt, 'CommissionGenerated').length, 0)
    assert.equal(await tokenBalance(f.usdc, payer.address), payerBefore - 44_500_000n)
    assert.equal(await tokenBalance(f.usdc, recipient), recipientBefore + 42_000_000n)
    assert.equal(await internalBalance(f.usdc, f.owner.address), (feesBefore ?? 0n) + 2_500_000n)
  })

  it('settles with an acquirer: commission to the acquirer, CommissionGenerated, full ref in the event', async () => {
    const acquirer = f.acquirers[1]!
    const args = await f.transferArgs({ payer: f.payers[1]!, token: f.eurc, principal: 1_000_000_000n, acquirerId: acquirer.id })
    const before = await internalBalance(f.eurc, acquirer.wallet.address)
    const receipt = await f.send(f.stranger, { functionName: 'transferWithPermit', args })
    const commission = (1_000_000_000n * BigInt(acquirer.feePercent)) / 10_000n
    const [event] = eventsOf(receipt, 'PermittedTransfer')
    const fields = event!.args
    assert.equal(fields.value, 1_000_000_000n)
    assert.equal(fields.fee, 2_500_000n + commission)
    assert.equal(fields.orderReference, args[11])
    assert.equal(fields.orderReference.slice(34), acquirer.id.slice(2))
    const [generated] = eventsOf(receipt, 'CommissionGenerated')
    assert.deepEqual(generated?.args, { acquirerId: acquirer.id, amount: commission })
    assert.equal(await internalBalance(f.eurc, acquirer.wallet.address), (before ?? 0n) + commission)
  })

  it('rejects a replayed binding signature (the permit nonce has moved on)', async () => {
    const args = await f.transferArgs({ payer: f.payers[2]! })
    await f.send(f.stranger, { functionName: 'transferWithPermit', args })
    await f.expectRevert(f.stranger, { functionName: 'transferWithPermit', args }, 'InvalidBindingSigner')
  })

  it('rejects a binding digest that was already used (token whose permit nonce never moves)', async () => {
    const { ReplayableToken } = compileContracts({ ReplayableToken: 'contracts/test/ReplayableToken.sol' })
    const payer = f.payers[2]!
    const deployHash = await createWalletClient({ account: f.owner, transport: http(f.chain.rpcUrl) }).deployContract({
      chain: null,
      abi: ReplayableToken.abi,
      bytecode: ReplayableToken.bytecode,
    })
    const token = (await f.publicClient.waitForTransactionReceipt({ hash: deployHash })).contractAddress!
    await f.send(f.owner, { address: token, abi: ReplayableToken.abi, functionName: 'mint', args: [payer.address, 10n ** 12n] })
    const tokenDomain = { name: 'ReplayableToken', version: '1', chainId: f.chain.deployment.chainId, verifyingContract: token }
    const args = await f.transferArgs({ payer, token, tokenDomain })
    const receipt = await f.send(f.stranger, { functionName: 'transferWithPermit', args })
    assert.equal(eventsOf(receipt, 'PermittedTransfer').length, 1)
    await f.expectRevert(f.stranger, { functionName: 'transferWithPermit', args }, 'HashAlreadyUsed')
  })

  it('rejects a binding signature from someone other than the payer', async () => {
    const payer = f.payers[3]!
    const args = await f.transferArgs({ payer, bindingSigner: f.stranger })
    await f.expectRevert(f.stranger, { functionName: 'transferWithPermit', args }, 'InvalidBindingSigner', [
      f.stranger.address,
      payer.address,
    ])
  })

  it('rejects a binding signature for another recipient', async () => {
    const args = await f.transferArgs({ payer: f.payers[3]! })
    const redirected = [...args.slice(0, 10), f.stranger.address, args[11]] as const
    await f.expectRevert(f.stranger, { functionName: 'transferWithPermit', args: redirected }, 'InvalidBindingSigner')
  })

  it('rejects an expired deadline', async () => {
    const deadline = (await f.now()) - 1n
    const args = await f.transferArgs({ payer: f.payers[4]!, deadline })
    await f.expectRevert(f.stranger, { functionName: 'transferWithPermit', args }, 'DeadlineExpired', [deadline])
  })

  it('rejects a failing permit', async () => {
    const args = await f.transferArgs({ payer: f.payers[4]!, permitSigner: f.stranger })
    await f.expectRevert(f.stranger, { functionName: 'transferWithPermit', args }, 'PermitFailed')
  })

  it('rejects a payer without enough tokens', async () => {
    const broke = privateKeyToAccount(generatePrivateKey())
    const args = await f.transferArgs({ payer: broke })
    await f.expectRevert(f.stranger, { functionName: 'transferWithPermit', args }, 'InsufficientBalance', [0n, args[2]])
  })

  it('rejects an amount below the base fee', async () => {
    const args = await f.transferArgs({ payer: f.payers[4]!, amount: 2_499_999n })
    await f.expectRevert(f.stranger, { functionName: 'transferWithPermit', args }, 'AmountBelowBaseFee', [
      2_499_999n,
      2_500_000n,
    ])
  })

  it('rejects an unknown acquirer id', async () => {
    const unknown = randomBytes16()
    const args = await f.transferArgs({ payer: f.payers[4]!, amount: 10_000_000n, acquirerId: unknown })
    await f.expectRevert(f.stranger, { functionName: 'transferWithPermit', args }, 'UnknownAcquirer', [unknown])
  })

  it('rejects the zero recipient', async () => {
    const args = await f.transferArgs({ payer: f.payers[4]!, recipient: zeroAddress })
    await f.expectRevert(f.stranger, { functionName: 'transferWithPermit', args }, 'ZeroAddress')
  })
})
