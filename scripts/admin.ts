/**
 * `npm run admin`: owner and balance-holder operations against any deployment — show the settings,
 * set the base fee or the acquiring price, read internal balances (getBalances), withdraw — and the
 * certificate authority's operations (merchants, certificates, revocation) and the webhook secret's
 * rotation, which need no deployment.
 */
import { encodeFunctionData, type Hex } from 'viem'
import { settlementAbi } from '../src/chain/index.js'
import { createChainClient } from '../src/chain/index.js'
import { displayAmount, type Deployment } from '../src/wire/index.js'
import { DEFAULT_DEPLOYMENT_PATH } from '../src/devnet/flags/index.js'
import { readDeployment } from '../src/devnet/local-devnet/index.js'
import { createTxSender } from '../src/chain/index.js'
import { caCommandOptions, caCommandUsage, isCaCommand, runCaCommand } from '../src/devnet/cli/index.js'
import { amountFlag, formatTable, runCli } from '../src/platform/cli/index.js'
import { isWebhookCommand, runWebhookCommand, webhookCommandOptions, webhookCommandUsage } from '../src/devnet/cli/index.js'
import { privateKeySetting } from '../src/config/index.js'
import { localDeployerKey } from '../src/config/index.js'
import { ConfigError, urlSetting } from '../src/config/index.js'

runCli(
  {
    name: 'admin',
    usage: `usage: npm run admin -- <command> [arguments] [--deployment <path>]

Commands:
  info                          the contract's current settings, amounts in token units (--json: raw)
  set-base-fee <amount>         setBaseFeeAmount (owner only)
  set-acquiring-price <amount>  setAcquiringPrice (owner only)
  balances [address...]         internal balances of every deployment token (default holders:
                                the fee recipient and the registered acquirers), in token units
                                (--json: raw units, for scripts)
  withdraw <token> <amount>     withdraw from the signer's internal balance; token = symbol or address

Amounts are integers in the token's smallest unit (2500000 = 2.50 of a 6-decimal token).
--deployment: the deployment file (${DEFAULT_DEPLOYMENT_PATH}).
Environment: RPC_URL (default: the deployment's), ADMIN_PRIVATE_KEY (the signer of set-* and withdraw;
default on chain 31337: the local deployer, which owns the devnet contract and receives its fees).

${caCommandUsage}

${webhookCommandUsage}`,
    options: { deployment: { type: 'string' }, json: { type: 'boolean' }, ...caCommandOptions, ...webhookCommandOptions },
    allowPositionals: true,
  },
  async ({ values, positionals: [command, ...args] }) => {
    if (isCaCommand(command)) return runCaCommand(command, args, values)
    if (isWebhookCommand(command)) return runWebhookCommand(command, args, values)
    const deployment = await readDeployment(values.deployment ?? DEFAULT_DEPLOYMENT_PATH)
    const publicClient = createChainClient({ rpcUrl: urlSetting(process.env, 'RPC_URL', deployment.rpcUrl) })
    const address = deployment.settlementContract
    const read = (functionName: 'baseFeeAmount' | 'acquiringPrice' | 'maxAcquiringFee' | 'feeRecipient' | 'owner') =>
      publicClient.readContract({ address, abi: settlementAbi, functionName })

    const write = async (data: Hex) => {
      const privateKey = privateKeySetting(process.env, 'ADMIN_PRIVATE_KEY', deployment.chainId, localDeployerKey)
      const sender = await createTxSender({ publicClient, privateKey, chainId: deployment.chainId })
      const hash = await sender.send({ to: address, data })
      const receipt = await publicClient.waitForTransactionReceipt({ hash })
      if (receipt.status !== 'success') throw new Error(`transaction ${hash} reverted`)
      console.log(`admin: done in ${hash} (block ${receipt.blockNumber})`)
    }

    switch (command) {
      case 'info': {
        const [owner, feeRecipient, baseFee, price, maxFee] = await Promise.all(
          (['owner', 'feeRecipient', 'baseFeeAmount', 'acquiringPrice', 'maxAcquiringFee'] as const).map(read),
        )
        const settings = { settlementContract: address, owner: String(owner).toLowerCase(), feeRecipient: String(feeRecipient).toLowerCase(), baseFeeAmount: baseFee, acquiringPrice: price, maxAcquiringFee: maxFee }
        if (values.json) return console.log(JSON.stringify(settings, (_, v: unknown) => (typeof v === 'bigint' ? v.toString() : v), 2))
        // The contract keeps amounts in each token's smallest units: shown for every deployment token.
        const inTokens = (amount: unknown) => `${deployment.tokens.map((t) => `${displayAmount(amount as bigint, t.decimals)} ${t.symbol}`).join(', ')} (${String(amount)} units)`
        console.log(
          formatTable([
            ['settlement contract', address],
            ['owner', settings.owner],
            ['fee recipient', settings.feeRecipient],
            ['base fee', inTokens(baseFee)],
            ['acquiring pack price', inTokens(price)],
            ['max acquiring fee', `${(Number(maxFee) / 100).toFixed(2)} % (${String(maxFee)} basis points)`],
          ]),
        )
        return
      }
      case 'set-base-fee':
        return write(encodeFunctionData({ abi: settlementAbi, functionName: 'setBaseFeeAmount', args: [amountFlag(args[0], 'amount')] }))
      case 'set-acquiring-price':
        return write(encodeFunctionData({ abi: settlementAbi, functionName: 'setAcquiringPrice', args: [amountFlag(args[0], 'amount')] }))
      case 'withdraw': {
        const token = findToken(deployment, args[0])
        return write(encodeFunctionData({ abi: settlementAbi, functionName: 'withdraw', args: [token, amountFlag(args[1], 'amount')] }))
      }
      case 'balances': {
        const holders = args.length > 0 ? args.map(checkAddress) : [deployment.feeRecipient, ...deployment.acquirers.map((a) => a.wallet)]
        const tokens = deployment.tokens.map((t) => t.address)
        const matrix = await publicClient.readContract({ address, abi: settlementAbi, functionName: 'getBalances', args: [tokens, holders] })
        const balance = (i: number, j: number) => matrix[i]?.[j] ?? 0n
        if (values.json) {
          const rows = holders.map((holder, j) => ({ holder, balances: Object.fromEntries(deployment.tokens.map((t, i) => [t.symbol, balance(i, j).toString()])) }))
          return console.log(JSON.stringify(rows, null, 2))
        }
        const header = ['holder', ...deployment.tokens.map((t) => t.symbol)]
        const rows = holders.map((holder, j) => [holder, ...deployment.tokens.map((t, i) => displayAmount(balance(i, j), t.decimals))])
        console.log(formatTable([header, ...rows], { header: true }))
        return
      }
      default:
        throw new ConfigError(`unknown command "${command ?? ''}": use info, set-base-fee, set-acquiring-price, balances, withdraw, or a certificate authority or webhook command (--help)`)
    }
  },
)

function findToken(deployment: Deployment, symbolOrAddress: string | undefined): Hex {
  const wanted = symbolOrAddress?.toLowerCase()
  const token = deployment.tokens.find((t) => t.symbol.toLowerCase() === wanted || t.address === wanted)
  if (token) return token.address
  if (symbolOrAddress && /^0x[0-9a-fA-F]{40}$/.test(symbolOrAddress)) return symbolOrAddress.toLowerCase() as Hex
  throw new ConfigError(`token "${symbolOrAddress ?? ''}" is neither a deployment token symbol nor an address`)
}

function checkAddress(value: string): Hex {
  if (!/^0x[0-9a-fA-F]{40}$/.test(value)) throw new ConfigError(`"${value}" is not a 0x-prefixed 20-byte address`)
  return value.toLowerCase() as Hex
}
