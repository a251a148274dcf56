/**
 * The local devnet in one call: anvil (chain 31337), the devnet deployment on automine (fast), then
 * interval mining at the chosen block time, and the deployment file written for the other pieces.
 * Used by `npm run devnet` and `npm start`.
 */
import { createTestClient, http } from 'viem'
import { startAnvil, type AnvilInstance } from '../anvil/index.js'
import { DEFAULT_DEPLOYMENT_PATH, LOCAL_CHAIN_ID, writeDeployment } from '../../config/index.js'
import { deployDevnet } from './deploy-devnet.js'
import type { StartDevnetOptions } from '../flags/index.js'
import { type Deployment } from '../../wire/index.js'

export interface Devnet {
  anvil: AnvilInstance
  deployment: Deployment
  /** Where the deployment file was written. */
  deploymentPath: string
  stop(): Promise<void>
}

export async function startDevnet(opts: StartDevnetOptions): Promise<Devnet> {
  const anvil = await startAnvil({ host: opts.host, port: opts.port, chainId: LOCAL_CHAIN_ID })
  try {
    const deployment = await deployDevnet({ rpcUrl: anvil.rpcUrl, payers: opts.payers })
    if (opts.blockTime > 0) {
      await createTestClient({ mode: 'anvil', transport: http(anvil.rpcUrl) }).setIntervalMining({ interval: opts.blockTime })
    }
    const deploymentPath = opts.deploymentPath ?? DEFAULT_DEPLOYMENT_PATH
    await writeDeployment(deploymentPath, deployment)
    return { anvil, deployment, deploymentPath, stop: anvil.stop }
  } catch (error) {
    await anvil.stop()
    throw error
  }
}
