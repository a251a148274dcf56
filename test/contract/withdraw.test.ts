/** Internal balances: both getBalances overloads, withdrawals by the fee recipient and an acquirer. */
import assert from 'node:assert/strict'
import { after, before, describe, it } from 'node:test'

import { stablecoinAbi } from '../../src/chain/abi/stablecoin-abi.js'
import { eventsOf, setupContractFixture, type ContractFixture } from './fixture.js'

describe('balances and withdraw', () => {
  let f: ContractFixture
  before(async () => {
    f = await setupContractFixture()
    // One payment per token through the second acquirer, so both hold balances in both tokens.
    for (const token of [f.usdc, f.eurc]) {
      const args = await f.transferArgs({ payer: f.payers[0]!, token, principal: 1_000_000_000n, acquirerId: f.acquirers[1]!.id })
      await f.send(f.stranger, { functionName: 'transferWithPermit', args })
    }
  })
  after(() => f.chain.stop())

  const commission = (1_000_000_000n * 250n) / 10_000n

  it('getBalances(token, holders) and getBalances(tokens, holders) agree', async () => {
    const holders = [f.owner.address, f.acquirers[1]!.wallet.address, f.stranger.address]
    const usdc = await f.read<bigint[]>({ functionName: 'getBalances', args: [f.usdc, holders] })
    const eurc = await f.read<bigint[]>({ functionName: 'getBalances', args: [f.eurc, holders] })
    const matrix = await f.read<bigint[][]>({ functionName: 'getBalances', args: [[f.usdc, f.eurc], holders] })
    assert.deepEqual(matrix, [usdc, eurc])
    // The devnet's two acquiring packs (paid in USDC) are part of the fee recipient's USDC balance.
    assert.deepEqual(eurc, [2_500_000n, commission, 0n])
    assert.equal(usdc[1], commission)
  })

  it('the fee recipient and an acquirer withdraw what they hold; Withdrawal names them', async () => {
    for (const account of [f.owner, f.acquirers[1]!.wallet]) {
      const [held] = await f.read<bigint[]>({ functionName: 'getBalances', args: [f.eurc, [account.address]] })
      const walletBefore = await f.read<bigint>({ address: f.eurc, abi: stablecoinAbi, functionName: 'balanceOf', args: [account.address] })
      const receipt = await f.send(account, { functionName: 'withdraw', args: [f.eurc, held] })
      assert.deepEqual(eventsOf(receipt, 'Withdrawal')[0]?.args, { owner: account.address, beneficiary: account.address, amount: held })
      const walletAfter = await f.read<bigint>({ address: f.eurc, abi: stablecoinAbi, functionName: 'balanceOf', args: [account.address] })
      assert.equal(walletAfter - walletBefore, held)
      assert.deepEqual(await f.read<bigint[]>({ functionName: 'getBalances', args: [f.eurc, [account.address]] }), [0n])
    }
  })

  it('a partial withdrawal leaves the rest', async () => {
    const acquirer = f.acquirers[1]!.wallet
    await f.send(acquirer, { functionName: 'withdraw', args: [f.usdc, 1n] })
    assert.deepEqual(await f.read<bigint[]>({ functionName: 'getBalances', args: [f.usdc, [acquirer.address]] }), [commission - 1n])
  })

  it('refuses a zero amount and more than the balance (the owner cannot take anyone else’s)', async () => {
    await f.expectRevert(f.owner, { functionName: 'withdraw', args: [f.usdc, 0n] }, 'ZeroAmount')
    await f.expectRevert(f.stranger, { functionName: 'withdraw', args: [f.usdc, 1n] }, 'InsufficientInternalBalance', [0n, 1n])
    const [held] = await f.read<bigint[]>({ functionName: 'getBalances', args: [f.usdc, [f.owner.address]] })
    await f.expectRevert(f.owner, { functionName: 'withdraw', args: [f.usdc, held! + 1n] }, 'InsufficientInternalBalance', [held, held! + 1n])
  })
})

