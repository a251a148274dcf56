/**
 * `npm run traffic`: real, signed settlements against a deployment (by default the devnet's) at a
 * chosen rate, with progress lines and the achieved rate.
 */
import { createChainClient } from '../src/chain/create-chain-client.js'
import { DEFAULT_DEPLOYMENT_PATH, readDeployment } from '../src/chain/devnet/deployment.js'
import { onShutdown } from '../src/cli/on-shutdown.js'
import { runCli } from '../src/cli/run-cli.js'
import { trafficOptions, trafficSettingsFromFlags, trafficUsage } from '../src/cli/traffic-flags.js'
import { privateKeySetting } from '../src/config/key-setting.js'
import { urlSetting } from '../src/config/parse-env.js'
import { formatProgress } from '../src/traffic/print-progress.js'
import { runTraffic } from '../src/traffic/run-traffic.js'

runCli(
  {
    name: 'traffic',
    usage: `usage: npm run traffic [-- options]

Sends real signed settlements (transferWithPermit) from the deployment's payers to its recipients,
some through a registered acquirer, each with a fresh order reference.

${trafficUsage}
  --deployment <path>   deployment file (${DEFAULT_DEPLOYMENT_PATH})

Environment: RPC_URL (default: the deployment's), RELAYER_PRIVATE_KEY (default on chain 31337: the
deployment's local relayer key).`,
    options: { ...trafficOptions, deployment: { type: 'string' } },
  },
  async ({ values }) => {
    const settings = trafficSettingsFromFlags(values)
    const deployment = await readDeployment(values.deployment ?? DEFAULT_DEPLOYMENT_PATH)
    const rpcUrl = urlSetting(process.env, 'RPC_URL', deployment.rpcUrl)
    const relayerKey = privateKeySetting(process.env, 'RELAYER_PRIVATE_KEY', deployment.chainId, deployment.relayerKey)
    const controller = new AbortController()
    onShutdown(async () => controller.abort())
    const result = await runTraffic({
      publicClient: createChainClient({ rpcUrl }),
      deployment,
      relayerKey,
      ...settings,
      signal: controller.signal,
      onProgress: (p) => console.log(formatProgress(p)),
    })
    console.log(`traffic: done, achieved ${result.rate.toFixed(1)} settlements/s`)
  },
)
