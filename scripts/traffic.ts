/**
 * `npm run traffic`: real, signed payments against a deployment (by default the devnet's) at a chosen
 * rate, with progress lines and the achieved rate. By default each payer is a wallet paying through the
 * gateway (WalletClient → gateway → submitter → chain), the path the product serves; `--direct` signs
 * and submits straight to the contract with the relayer key, the baseline the gateway is compared with.
 */
import { createChainClient } from '../src/chain/index.js'
import { readDirectory } from '../src/chain/index.js'
import { DEFAULT_DEPLOYMENT_PATH } from '../src/config/index.js'
import { readDeployment } from '../src/config/index.js'
import { onShutdown } from '../src/platform/shutdown/index.js'
import { runCli } from '../src/platform/cli/index.js'
import { trafficOptions, trafficSettingsFromFlags, trafficUsage } from '../src/devnet/flags/index.js'
import { privateKeySetting } from '../src/config/index.js'
import { urlSetting } from '../src/config/index.js'
import { formatProgress } from '../src/devnet/traffic/index.js'
import { runTraffic } from '../src/devnet/traffic/index.js'
import { runWalletTraffic } from '../src/devnet/traffic/index.js'

runCli(
  {
    name: 'traffic',
    usage: `usage: npm run traffic [-- options]

Sends real signed settlements (transferWithPermit) from the deployment's payers to its recipients,
some through a registered acquirer, each with a fresh order reference.

${trafficUsage}
  --deployment <path>   deployment file (${DEFAULT_DEPLOYMENT_PATH})
  --direct              submit straight to the contract with the relayer key instead of through the gateway

Environment: RPC_URL (default: the deployment's), GATEWAY_URL (ws://127.0.0.1:4000/ws), and with --direct
RELAYER_PRIVATE_KEY (default on chain 31337: the deployment's local relayer key; stop the gateway's
submitter first, or give another key, since both would use the relayer's nonces).`,
    options: { ...trafficOptions, deployment: { type: 'string' }, direct: { type: 'boolean' } },
  },
  async ({ values }) => {
    const settings = trafficSettingsFromFlags(values)
    const deployment = await readDeployment(values.deployment ?? DEFAULT_DEPLOYMENT_PATH)
    const publicClient = createChainClient({ rpcUrl: urlSetting(process.env, 'RPC_URL', deployment.rpcUrl) })
    const controller = new AbortController()
    onShutdown(async () => controller.abort())
    const common = { ...settings, signal: controller.signal, onProgress: (p: Parameters<typeof formatProgress>[0]) => console.log(formatProgress(p)) }
    const result = values.direct
      ? await runTraffic({ ...common, publicClient, deployment, relayerKey: privateKeySetting(process.env, 'RELAYER_PRIVATE_KEY', deployment.chainId, deployment.relayerKey) })
      : await runWalletTraffic({
          ...common,
          deployment,
          gatewayUrl: urlSetting(process.env, 'GATEWAY_URL', 'ws://127.0.0.1:4000/ws', ['ws:', 'wss:']),
          directory: await readDirectory({ publicClient, settlementContract: deployment.settlementContract, fromBlock: BigInt(deployment.startBlock) }),
        })
    console.log(`traffic: done, achieved ${result.rate.toFixed(1)} settlements/s`)
  },
)
