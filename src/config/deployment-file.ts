/**
 * Reading and writing the deployment file (`Deployment` in wire/), refusing one with a field missing. In
 * config/ because every production piece may read it for its chain settings; only the devnet writes it.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { dirname } from 'node:path'
import type { Deployment } from '../wire/index.js'
import { ConfigError } from './parse-env.js'

/** Where `npm run devnet` and `npm run deploy` write the deployment file and every piece looks for it. */
export const DEFAULT_DEPLOYMENT_PATH = '.data/deployment.json'

export async function writeDeployment(path: string, deployment: Deployment): Promise<void> {
  await mkdir(dirname(path), { recursive: true })
  await writeFile(path, `${JSON.stringify(deployment, null, 2)}\n`)
}

export async function readDeployment(path: string = DEFAULT_DEPLOYMENT_PATH): Promise<Deployment> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (error) {
    throw new ConfigError(`deployment file ${path} not found: run \`npm run devnet\` or \`npm run deploy\` first`, { cause: error })
  }
  let parsed: Partial<Deployment>
  try {
    parsed = JSON.parse(text) as Partial<Deployment>
  } catch (error) {
    throw new ConfigError(`deployment file ${path} is not valid JSON`, { cause: error })
  }
  const hex = /^0x[0-9a-f]+$/
  const problem =
    (!Number.isInteger(parsed.chainId) && 'chainId') ||
    (typeof parsed.rpcUrl !== 'string' && 'rpcUrl') ||
    (!hex.test(parsed.settlementContract ?? '') && 'settlementContract') ||
    (!Number.isInteger(parsed.startBlock) && 'startBlock') ||
    (!hex.test(parsed.feeRecipient ?? '') && 'feeRecipient') ||
    (!Array.isArray(parsed.tokens) && 'tokens')
  if (problem) throw new ConfigError(`deployment file ${path}: field ${problem} is missing or malformed`)
  return { payerKeys: [], recipients: [], acquirers: [], ...parsed } as Deployment
}
