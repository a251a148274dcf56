/**
 * `npm run devnet`: anvil on 127.0.0.1:8545 (chain 31337) with the test stablecoins, the settlement
 * contract, funded payers and registered acquirers; writes .data/deployment.json and runs until Ctrl-C.
 */
import { devnetOptions, devnetOptionsFromFlags, devnetUsage } from '../src/devnet/flags/index.js'
import { runCli } from '../src/platform/cli/index.js'
import { startDevnet } from '../src/devnet/local-devnet/index.js'
import { onShutdown } from '../src/platform/shutdown/index.js'

runCli(
  {
    name: 'devnet',
    usage: `usage: npm run devnet [-- options]

Starts a local chain (anvil, chain id 31337) with USDC and EURC test stablecoins (6 decimals), the
settlement contract (base fee 2500000), funded payers and two acquirers, writes the deployment file
and keeps running until Ctrl-C.

${devnetUsage}`,
    options: devnetOptions,
  },
  async ({ values }) => {
    const opts = devnetOptionsFromFlags(values)
    const devnet = await startDevnet(opts)
    const { deployment } = devnet
    console.log(`devnet: ${deployment.rpcUrl} chain ${deployment.chainId}, settlement contract ${deployment.settlementContract}`)
    console.log(`devnet: tokens ${deployment.tokens.map((t) => `${t.symbol} ${t.address}`).join(', ')}`)
    console.log(`devnet: ${deployment.payerKeys.length} payers, ${deployment.acquirers.length} acquirers; wrote ${devnet.deploymentPath}`)
    console.log('devnet: running — Ctrl-C to stop')
    onShutdown(() => devnet.stop())
  },
)
