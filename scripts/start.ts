/**
 * `npm start`: the whole local stack in one process — devnet (anvil + contracts) and demo traffic.
 * Each piece is started in order and stopped in reverse order on Ctrl-C.
 *
 * The explorer starts after the devnet (it reads `devnet.deployment`) and before the traffic.
 */
import { rmSync } from 'node:fs'
import { createChainClient } from '../src/chain/create-chain-client.js'
import { startDevnet } from '../src/chain/devnet/start-devnet.js'
import { devnetOptions, devnetOptionsFromFlags, devnetUsage } from '../src/cli/devnet-flags.js'
import { onShutdown } from '../src/cli/on-shutdown.js'
import { runCli } from '../src/cli/run-cli.js'
import { trafficOptions, trafficSettingsFromFlags, trafficUsage } from '../src/cli/traffic-flags.js'
import { explorerOptionsFromEnv } from '../src/config/explorer-options.js'
import { localRelayerKey } from '../src/config/local-keys.js'
import { startExplorer } from '../src/server/start-explorer.js'
import { formatProgress } from '../src/traffic/print-progress.js'
import { runTraffic } from '../src/traffic/run-traffic.js'

runCli(
  {
    name: 'start',
    usage: `usage: npm start [-- options]

Starts the local devnet (anvil on 127.0.0.1:8545, chain 31337, contracts deployed), the explorer on
http://127.0.0.1:4001 (EXPLORER_PORT) and demo traffic through the contract, until Ctrl-C.

${devnetUsage}
${trafficUsage}`,
    options: { ...devnetOptions, ...trafficOptions },
  },
  async ({ values }) => {
    const devnetSettings = devnetOptionsFromFlags(values)
    const trafficSettings = trafficSettingsFromFlags(values)
    /** Stop functions, run last-started-first on shutdown. */
    const stops: (() => Promise<void>)[] = []
    onShutdown(async () => {
      for (const stop of stops.reverse()) await stop()
    })

    const devnet = await startDevnet(devnetSettings)
    stops.push(devnet.stop)
    const { deployment } = devnet
    console.log(`devnet: ${deployment.rpcUrl}, settlement contract ${deployment.settlementContract}; wrote ${devnetSettings.deploymentPath}`)

    // The devnet is a fresh chain every time, so the explorer starts from an empty data directory.
    const dataDir = process.env.DATA_DIR ?? '.data/devnet-explorer'
    rmSync(dataDir, { recursive: true, force: true })
    const explorer = await startExplorer(
      explorerOptionsFromEnv({ ...process.env, CHAIN_ID: String(deployment.chainId), RPC_URL: deployment.rpcUrl, SETTLEMENT_CONTRACT: undefined, START_BLOCK: undefined, DATA_DIR: dataDir }, deployment),
    )
    stops.push(explorer.stop)
    console.log(`explorer: ${explorer.url}/events (WebSocket ${explorer.url.replace('http', 'ws')}/stream)`)

    const traffic = new AbortController()
    const trafficDone = runTraffic({
      publicClient: createChainClient({ rpcUrl: deployment.rpcUrl }),
      deployment,
      relayerKey: deployment.relayerKey ?? localRelayerKey,
      ...trafficSettings,
      signal: traffic.signal,
      onProgress: (p) => console.log(formatProgress(p)),
    })
    stops.push(async () => {
      traffic.abort()
      await trafficDone.catch(() => {})
    })
    await trafficDone
  },
)
