/**
 * `npm run admin`: owner and balance-holder operations against any deployment — show the settings,
 * change them (sent with a key, proposed for a Safe or a hardware wallet, or executed through a Safe),
 * move ownership in two steps, read internal balances (getBalances), withdraw, and the relayer's runway —
 * and the certificate authority's operations (merchants, certificates, revocation) and the webhook
 * secret's rotation, which need no deployment.
 */
import { settlementAbi } from '../src/chain/index.js'
import { createChainClient } from '../src/chain/index.js'
import { displayAmount } from '../src/wire/index.js'
import { DEFAULT_DEPLOYMENT_PATH } from '../src/config/index.js'
import { readDeployment } from '../src/config/index.js'
import { caCommandOptions, caCommandUsage, isCaCommand, runCaCommand } from '../src/processor/admin/index.js'
import { addressFlag, formatTable, runCli } from '../src/platform/cli/index.js'
import { isWebhookCommand, runWebhookCommand, webhookCommandOptions, webhookCommandUsage } from '../src/processor/admin/index.js'
import { amountInTokens, isOwnerCommand, ownerCommandOptions, ownerCommandUsage, runOwnerCommand, runRelayerCommand, signSafeTx } from '../src/processor/admin/index.js'
import { ConfigError, rpcEndpointsSetting } from '../src/config/index.js'

runCli(
  {
    name: 'admin',
    usage: `usage: npm run admin -- <command> [arguments] [--deployment <path>]

Commands:
  info                          the contract's current settings, amounts in token units (--json: raw)
  balances [address...]         internal balances of every deployment token (default holders:
                                the fee recipient and the registered acquirers), in token units
                                (--json: raw units, for scripts)
  relayer [address]             the relayer's runway: balance, gas price, gas per payment measured from
                                recent receipts, cost per payment, payments left (default address: that of
                                RELAYER_PRIVATE_KEY; warning level RELAYER_RUNWAY_WARNING_PAYMENTS, 10000)

${ownerCommandUsage}

Amounts are integers in the token's smallest unit (2500000 = 2.50 of a 6-decimal token).
--deployment: the deployment file (${DEFAULT_DEPLOYMENT_PATH}).
Environment: RPC_URL (default: the deployment's; several nodes: comma-separated), ADMIN_PRIVATE_KEY (the sender of owner operations,
the payer of --execute, the signer of sign-safe-tx; default on chain 31337: the local deployer, which
owns the devnet contract and receives its fees).

${caCommandUsage}

${webhookCommandUsage}`,
    options: { deployment: { type: 'string' }, json: { type: 'boolean' }, ...ownerCommandOptions, ...caCommandOptions, ...webhookCommandOptions },
    allowPositionals: true,
  },
  async ({ values, positionals: [command, ...args] }) => {
    if (isCaCommand(command)) return runCaCommand(command, args, values)
    if (isWebhookCommand(command)) return runWebhookCommand(command, args, values)
    if (!isOwnerCommand(command) && !['info', 'balances', 'relayer', 'sign-safe-tx'].includes(command ?? '')) {
      throw new ConfigError(`unknown command "${command ?? ''}": use info, balances, relayer, an owner operation (set-base-fee, transfer-ownership, ...), or a certificate authority or webhook command (--help)`)
    }
    const deployment = await readDeployment(values.deployment ?? DEFAULT_DEPLOYMENT_PATH)
    const publicClient = createChainClient(rpcEndpointsSetting(process.env, deployment.rpcUrl))
    if (isOwnerCommand(command)) return runOwnerCommand(command, args, values, { publicClient, deployment, env: process.env })
    if (command === 'sign-safe-tx') return console.log(await signSafeTx(args[0], values.nonce, { publicClient, deployment, env: process.env }))
    if (command === 'relayer') return runRelayerCommand(args, values, { publicClient, deployment, env: process.env })
    const address = deployment.settlementContract
    const read = (functionName: 'baseFeeAmount' | 'acquiringPrice' | 'maxAcquiringFee' | 'feeRecipient' | 'owner' | 'pendingOwner') =>
      publicClient.readContract({ address, abi: settlementAbi, functionName })

    switch (command) {
      case 'info': {
        const [owner, feeRecipient, baseFee, price, maxFee, pendingOwner] = await Promise.all(
          (['owner', 'feeRecipient', 'baseFeeAmount', 'acquiringPrice', 'maxAcquiringFee', 'pendingOwner'] as const).map(read),
        )
        const settings = { settlementContract: address, owner: String(owner).toLowerCase(), feeRecipient: String(feeRecipient).toLowerCase(), baseFeeAmount: baseFee, acquiringPrice: price, maxAcquiringFee: maxFee }
        if (values.json) return console.log(JSON.stringify(settings, (_, v: unknown) => (typeof v === 'bigint' ? v.toString() : v), 2))
        // The contract keeps amounts in each token's smallest units: shown for every deployment token.
        const inTokens = (amount: unknown) => amountInTokens(deployment, amount as bigint)
        console.log(
          formatTable([
            ['settlement contract', address],
            ['owner', settings.owner],
            // Only while a two-step transfer waits for accept-ownership.
            ...(BigInt(String(pendingOwner)) === 0n ? [] : [['pending owner', String(pendingOwner).toLowerCase()]]),
            ['fee recipient', settings.feeRecipient],
            ['base fee', inTokens(baseFee)],
            ['acquiring pack price', inTokens(price)],
            ['max acquiring fee', `${(Number(maxFee) / 100).toFixed(2)} % (${String(maxFee)} basis points)`],
          ]),
        )
        return
      }
      case 'balances': {
        const holders = args.length > 0 ? args.map((arg) => addressFlag(arg, 'a holder')) : [deployment.feeRecipient, ...deployment.acquirers.map((a) => a.wallet)]
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
    }
  },
)
