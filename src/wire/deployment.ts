/**
 * The deployment file: which contract and tokens the other pieces (explorer, traffic, admin, tests) work
 * against. `devnet` writes every field; `deploy` on a real network writes no keys (`relayerKey` absent,
 * empty `payerKeys`), because only the well-known local keys may ever be written to disk.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { dirname } from 'node:path'
import type { Hex } from 'viem'
import type { TokenInfo } from '../devnet/deploy/deploy-stablecoin.js'

export const DEFAULT_DEPLOYMENT_PATH = '.data/deployment.json'

export interface DeployedAcquirer {
  /** bytes16: 0x + 32 hex. */
  id: Hex
  wallet: Hex
  /** Basis points. */
  feePercent: number
}

export interface Deployment {
  chainId: number
  rpcUrl: string
  settlementContract: Hex
  /** The block the settlement contract was deployed in: indexing starts here. */
  startBlock: number
  feeRecipient: Hex
  /** Local chains only (a well-known key); elsewhere the relayer key comes from RELAYER_PRIVATE_KEY. */
  relayerKey?: Hex
  tokens: TokenInfo[]
  payerKeys: Hex[]
  recipients: Hex[]
  acquirers: DeployedAcquirer[]
}

export async function writeDeployment(path: string, deployment: Deployment): Promise<void> {
  await mkdir(dirname(path), { recursive: true })
  await writeFile(path, `${JSON.stringify(deployment, null, 2)}\n`)
}

export async function readDeployment(path: string = DEFAULT_DEPLOYMENT_PATH): Promise<Deployment> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch {
    throw new Error(`deployment file ${path} not found: run \`npm run devnet\` or \`npm run deploy\` first`)
  }
  let parsed: Partial<Deployment>
  try {
    parsed = JSON.parse(text) as Partial<Deployment>
  } catch {
    throw new Error(`deployment file ${path} is not valid JSON`)
  }
  const hex = /^0x[0-9a-f]+$/
  const problem =
    (!Number.isInteger(parsed.chainId) && 'chainId') ||
    (typeof parsed.rpcUrl !== 'string' && 'rpcUrl') ||
    (!hex.test(parsed.settlementContract ?? '') && 'settlementContract') ||
    (!Number.isInteger(parsed.startBlock) && 'startBlock') ||
    (!hex.test(parsed.feeRecipient ?? '') && 'feeRecipient') ||
    (!Array.isArray(parsed.tokens) && 'tokens')
  if (problem) throw new Error(`deployment file ${path}: field ${problem} is missing or malformed`)
  return { payerKeys: [], recipients: [], acquirers: [], ...parsed } as Deployment
}
