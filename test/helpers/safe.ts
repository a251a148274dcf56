/**
 * A real Safe on a test chain: the singleton and proxy factory from the `@safe-global/safe-contracts`
 * npm package, compiled here with solc-js (as our own contracts are; the Safe's sources need the legacy
 * pipeline, not via-IR), and a proxy set up with the given owners and threshold.
 */
import { createWalletClient, encodeFunctionData, http, parseEventLogs, type Hex, type LocalAccount, type PublicClient } from 'viem'
import { compileContracts, type CompiledContract } from '../../src/devnet/compile/compile-contracts.js'

const SAFE_SOURCES = {
  Safe: 'node_modules/@safe-global/safe-contracts/contracts/Safe.sol',
  SafeProxyFactory: 'node_modules/@safe-global/safe-contracts/contracts/proxies/SafeProxyFactory.sol',
} as const

let compiled: Record<keyof typeof SAFE_SOURCES, CompiledContract> | undefined

export async function deploySafe(params: { publicClient: PublicClient; rpcUrl: string; deployer: LocalAccount; owners: Hex[]; threshold: number }): Promise<Hex> {
  compiled ??= compileContracts(SAFE_SOURCES, { viaIR: false })
  const { publicClient, deployer } = params
  const wallet = createWalletClient({ account: deployer, transport: http(params.rpcUrl) })
  const deploy = async ({ abi, bytecode }: CompiledContract) => {
    const hash = await wallet.deployContract({ chain: null, abi, bytecode })
    const { contractAddress, status } = await publicClient.waitForTransactionReceipt({ hash })
    if (status !== 'success' || !contractAddress) throw new Error(`deploying a Safe contract failed (${hash})`)
    return contractAddress
  }
  const singleton = await deploy(compiled.Safe)
  const factory = await deploy(compiled.SafeProxyFactory)
  const zero = '0x0000000000000000000000000000000000000000'
  const setup = encodeFunctionData({
    abi: compiled.Safe.abi,
    functionName: 'setup',
    args: [params.owners, BigInt(params.threshold), zero, '0x', zero, zero, 0n, zero],
  })
  const hash = await wallet.writeContract({
    chain: null,
    address: factory,
    abi: compiled.SafeProxyFactory.abi,
    functionName: 'createProxyWithNonce',
    args: [singleton, setup, 0n],
  })
  const receipt = await publicClient.waitForTransactionReceipt({ hash })
  const [created] = parseEventLogs({ abi: compiled.SafeProxyFactory.abi, logs: receipt.logs, eventName: 'ProxyCreation' }) as unknown as { args: { proxy: Hex } }[]
  if (!created) throw new Error(`the proxy factory created no Safe (${hash})`)
  return created.args.proxy.toLowerCase() as Hex
}
