/**
 * Shared setup of the contract tests: one devnet per test file, the accounts it holds, and helpers to
 * send a transaction, expect a specific custom error, and build `transferWithPermit` arguments with any
 * of their parts deliberately wrong.
 */
import assert from 'node:assert/strict'
import {
  BaseError,
  ContractFunctionRevertedError,
  createWalletClient,
  http,
  parseEventLogs,
  type Abi,
  type Hex,
  type LocalAccount,
  type PublicClient,
  type TransactionReceipt,
} from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { settlementAbi } from '../../src/chain/abi/settlement-abi.js'
import { stablecoinAbi } from '../../src/chain/abi/stablecoin-abi.js'
import { createChainClient } from '../../src/chain/create-chain-client.js'
import { packRef, randomBytes16, ZERO_BYTES16 } from '../../src/wire/order-reference.js'
import { createPermitTracker } from '../../src/chain/payments/permit-tracker.js'
import { signPermitPair } from '../../src/wire/sign-permit-pair.js'
import { payWithPermitTypes, type TokenDomain } from '../../src/wire/typed-data.js'
import { anvilKeys, deriveLocalKey, localDeployerKey } from '../../src/config/local-keys.js'
import { startLocalChain, type LocalChain } from '../../src/devnet/testing/index.js'

export interface ContractFixture {
  chain: LocalChain
  publicClient: PublicClient
  settlement: Hex
  usdc: Hex
  eurc: Hex
  owner: LocalAccount
  /** Holds ETH but no role: for owner-only and wrong-signer checks. */
  stranger: LocalAccount
  payers: LocalAccount[]
  acquirers: { id: Hex; wallet: LocalAccount; feePercent: number }[]
  send(account: LocalAccount, call: Call): Promise<TransactionReceipt>
  read<T>(call: Omit<Call, 'address'> & { address?: Hex }): Promise<T>
  expectRevert(account: LocalAccount, call: Call, errorName: string, args?: readonly unknown[]): Promise<void>
  transferArgs(opts: TransferOptions): Promise<TransferArgs>
  now(): Promise<bigint>
}

export interface Call {
  address?: Hex
  abi?: Abi
  functionName: string
  args?: readonly unknown[]
}

export interface TransferOptions {
  payer: LocalAccount
  token?: Hex
  recipient?: Hex
  principal?: bigint
  acquirerId?: Hex
  orderReference?: Hex
  /** Signs the binding instead of the payer (a wrong signer). */
  bindingSigner?: LocalAccount
  /** Signs the permit instead of the payer (a failing permit). */
  permitSigner?: LocalAccount
  deadline?: bigint
  /** Overrides the permit value (default principal + calculateFees). */
  amount?: bigint
  /** For mock tokens without ERC-5267 `eip712Domain()`. */
  tokenDomain?: TokenDomain
}

export type TransferArgs = readonly [Hex, Hex, bigint, bigint, number, Hex, Hex, number, Hex, Hex, Hex, Hex]

export async function setupContractFixture(): Promise<ContractFixture> {
  const chain = await startLocalChain()
  const { deployment } = chain
  const publicClient = createChainClient({ rpcUrl: chain.rpcUrl, pollingIntervalMs: 20 })
  const settlement = deployment.settlementContract
  const [usdc, eurc] = deployment.tokens.map((token) => token.address) as [Hex, Hex]

  const send: ContractFixture['send'] = async (account, call) => {
    const wallet = createWalletClient({ account, transport: http(chain.rpcUrl) })
    const hash = await wallet.writeContract({
      chain: null,
      address: call.address ?? settlement,
      abi: call.abi ?? settlementAbi,
      functionName: call.functionName,
      args: call.args ?? [],
    } as Parameters<typeof wallet.writeContract>[0])
    const receipt = await publicClient.waitForTransactionReceipt({ hash })
    assert.equal(receipt.status, 'success', `${call.functionName} failed`)
    return receipt
  }

  const read: ContractFixture['read'] = (call) =>
    publicClient.readContract({
      address: call.address ?? settlement,
      abi: call.abi ?? settlementAbi,
      functionName: call.functionName,
      args: call.args ?? [],
    } as Parameters<typeof publicClient.readContract>[0]) as never

  const expectRevert: ContractFixture['expectRevert'] = async (account, call, errorName, args) => {
    try {
      await publicClient.simulateContract({
        account,
        address: call.address ?? settlement,
        abi: call.abi ?? settlementAbi,
        functionName: call.functionName,
        args: call.args ?? [],
      } as Parameters<typeof publicClient.simulateContract>[0])
    } catch (error) {
      const reverted = error instanceof BaseError && error.walk((e) => e instanceof ContractFunctionRevertedError)
      assert.ok(reverted instanceof ContractFunctionRevertedError, `expected ${errorName}, got ${String(error)}`)
      assert.equal(reverted.data?.errorName, errorName)
      if (args) assert.deepEqual(reverted.data?.args, args)
      return
    }
    assert.fail(`${call.functionName} did not revert (expected ${errorName})`)
  }

  const permits = createPermitTracker(publicClient)
  const now = async () => (await publicClient.getBlock()).timestamp

  const transferArgs: ContractFixture['transferArgs'] = async (opts) => {
    const token = opts.token ?? usdc
    const acquirerId = opts.acquirerId ?? ZERO_BYTES16
    const principal = opts.principal ?? 10_000_000n
    const recipient = opts.recipient ?? deployment.recipients[0]!
    const deadline = opts.deadline ?? (await now()) + 3600n
    const [fee, nonce, tokenDomain] = await Promise.all([
      opts.amount === undefined ? read<bigint>({ functionName: 'calculateFees', args: [principal, acquirerId] }) : 0n,
      read<bigint>({ address: token, abi: stablecoinAbi, functionName: 'nonces', args: [opts.payer.address] }),
      opts.tokenDomain ?? permits.tokenDomain(token),
    ])
    const amount = opts.amount ?? principal + fee
    const ref = packRef(opts.orderReference ?? randomBytes16(), acquirerId)
    const permit = { owner: opts.payer.address, spender: settlement, value: amount, nonce, deadline }
    const binding = {
      types: payWithPermitTypes,
      primaryType: 'PayWithPermitParams' as const,
      message: { token, beneficiary: recipient, ref, permitParams: permit },
    }
    const sign = (payer: LocalAccount) =>
      signPermitPair({ payer, tokenDomain, permit, settlementContract: settlement, binding })
    const main = await sign(opts.payer)
    const permitSigs = opts.permitSigner ? await sign(opts.permitSigner) : main
    const bindingSigs = opts.bindingSigner ? await sign(opts.bindingSigner) : main
    return [
      token, opts.payer.address, amount, deadline,
      permitSigs.v1, permitSigs.r1, permitSigs.s1, bindingSigs.v2, bindingSigs.r2, bindingSigs.s2,
      recipient, ref,
    ] as const
  }

  return {
    chain,
    publicClient,
    settlement,
    usdc,
    eurc,
    owner: privateKeyToAccount(localDeployerKey),
    stranger: privateKeyToAccount(anvilKeys[5] as Hex),
    payers: deployment.payerKeys.map((key) => privateKeyToAccount(key)),
    acquirers: deployment.acquirers.map((acquirer, i) => ({
      id: acquirer.id,
      wallet: privateKeyToAccount(deriveLocalKey('acquirer', i)),
      feePercent: acquirer.feePercent,
    })),
    send,
    read,
    expectRevert,
    transferArgs,
    now,
  }
}

type SettlementEventName = Extract<(typeof settlementAbi)[number], { type: 'event' }>['name']

/** The decoded events of one name in a receipt, from the settlement contract's ABI. */
export function eventsOf<name extends SettlementEventName>(receipt: TransactionReceipt, eventName: name) {
  return parseEventLogs({ abi: settlementAbi, eventName, logs: receipt.logs })
}
