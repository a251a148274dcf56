/**
 * A real Safe on a test chain: the singleton and proxy factory as the `@safe-global/safe-contracts` npm
 * package ships them built (its `build/artifacts`, the bytecode Safe deploys), and a proxy set up with the
 * given owners and threshold. Compiling the package's sources here instead took ~4 CPU-s of solc-js.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { createWalletClient, encodeFunctionData, http, parseEventLogs, type Abi, type Hex, type LocalAccount, type PublicClient } from 'viem'
import { repoRoot } from '../../src/devnet/testing/index.js'

const ARTIFACTS = 'node_modules/@safe-global/safe-contracts/build/artifacts/contracts'

interface Artifact {
  abi: Abi
  bytecode: Hex
}
const artifact = (path: string) => JSON.parse(readFileSync(join(repoRoot, ARTIFACTS, path), 'utf8')) as Artifact

export async function deploySafe(params: { publicClient: PublicClient; rpcUrl: string; deployer: LocalAccount; owners: Hex[]; threshold: number }): Promise<Hex> {
  const compiled = { Safe: artifact('Safe.sol/Safe.json'), SafeProxyFactory: artifact('proxies/SafeProxyFactory.sol/SafeProxyFactory.json') }
  const { publicClient, deployer } = params
  const wallet = createWalletClient({ account: deployer, transport: http(params.rpcUrl) })
  const deploy = async ({ abi, bytecode }: Artifact) => {
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
