/**
 * The local devnet's deployment for a piece started on its own: on chain 31337 without
 * SETTLEMENT_CONTRACT, the deployment file (DEPLOYMENT_FILE, default .data/deployment.json) fills in the
 * chain settings when it exists.
 */
import { existsSync } from 'node:fs'
import { type Deployment } from '../wire/index.js'
import { DEFAULT_DEPLOYMENT_PATH, readDeployment } from './deployment-file.js'
import type { Env } from './parse-env.js'

export async function localDeploymentFromEnv(env: Env = process.env): Promise<Deployment | undefined> {
  const path = env.DEPLOYMENT_FILE ?? DEFAULT_DEPLOYMENT_PATH
  return !env.SETTLEMENT_CONTRACT && existsSync(path) ? readDeployment(path) : undefined
}
