/**
 * `npm run deploy`: deploys the settlement contract (and optional test stablecoins) to any network from
 * a config file plus RPC_URL, CHAIN_ID and DEPLOYER_PRIVATE_KEY; writes a deployment file without keys.
 */
import { createChainClient } from '../src/chain/index.js'
import { deployContracts } from '../src/devnet/deploy/index.js'
import { readDeployConfig } from '../src/devnet/deploy/index.js'
import { DEFAULT_DEPLOYMENT_PATH } from '../src/config/index.js'
import { writeDeployment } from '../src/config/index.js'
import { createTxSender } from '../src/chain/index.js'
import { runCli } from '../src/platform/cli/index.js'
import { privateKeySetting } from '../src/config/index.js'
import { localDeployerKey } from '../src/config/index.js'
import { ConfigError } from '../src/config/index.js'

runCli(
  {
    name: 'deploy',
    usage: `usage: npm run deploy -- --config <file> [--out <path>]

Deploys the settlement contract with the parameters of <file> (see contracts/deploy-config.example.json):
network.rpcUrl, network.chainId, baseFeeAmount (2500000), maxAcquiringFee (500 = 5.00 %),
acquiringPrice, feeRecipient (default: the deployer), allowedTokens, and optional testTokens to deploy
first. Writes the deployment to --out (${DEFAULT_DEPLOYMENT_PATH}).

Environment (takes precedence over the file): RPC_URL, CHAIN_ID, BASE_FEE_AMOUNT, and
DEPLOYER_PRIVATE_KEY (required; the well-known anvil keys are refused off chain 31337).`,
    options: { config: { type: 'string' }, out: { type: 'string' } },
  },
  async ({ values }) => {
    if (!values.config) throw new ConfigError('--config <file> is required')
    const config = await readDeployConfig(values.config, process.env)
    const privateKey = privateKeySetting(process.env, 'DEPLOYER_PRIVATE_KEY', config.chainId, localDeployerKey)
    const publicClient = createChainClient({ rpcUrl: config.rpcUrl, pollingIntervalMs: 1000 })
    const actualChainId = await publicClient.getChainId()
    if (actualChainId !== config.chainId) {
      throw new ConfigError(`CHAIN_ID is ${config.chainId} but ${config.rpcUrl} serves chain ${actualChainId}`)
    }
    const sender = await createTxSender({ publicClient, privateKey, chainId: config.chainId })
    const feeRecipient = config.settlement.feeRecipient ?? sender.address
    const deployed = await deployContracts({
      publicClient,
      sender,
      testTokens: config.testTokens,
      settlement: { ...config.settlement, feeRecipient },
    })
    const out = values.out ?? DEFAULT_DEPLOYMENT_PATH
    await writeDeployment(out, {
      chainId: config.chainId,
      rpcUrl: config.rpcUrl,
      ...deployed,
      feeRecipient,
      payerKeys: [],
      recipients: [],
      acquirers: [],
    })
    console.log(`deploy: settlement contract ${deployed.settlementContract} at block ${deployed.startBlock} on chain ${config.chainId}`)
    for (const token of deployed.tokens) console.log(`deploy: token ${token.symbol} ${token.address}`)
    console.log(`deploy: wrote ${out}`)
  },
)
