/**
 * `npm run wallet -- pay <payment link>`: pays a payment link (the widget's QR code) the way a phone
 * wallet would after scanning it, as a local test payer on the devnet (chain 31337 only). Prints each
 * submission status, then the final one and the transaction hash.
 */
import { runCli } from '../src/platform/cli/index.js'
import { numberFlag } from '../src/platform/cli/index.js'
import { ConfigError, urlSetting } from '../src/config/index.js'
import { demoMerchantAccount, payAsDemoPayer } from '../src/devnet/demo-wallet/index.js'
import { displayAmount } from '../src/wire/index.js'

runCli(
  {
    name: 'wallet',
    usage: `npm run wallet -- pay <payment link> [--payer <n> | --merchant <n>]

Pays the link (<widget>/s/<charge id>?t=<token>, or a refund's <widget>/r/<refund id>?t=<token>): fetches its session with the token, signs the permit and the
binding signature as demo payer n (a local test key, chain 31337 only; topped up from devnet payer n when short),
submits through the wallet gateway the session names and follows it to SUCCESS or FAILURE, after one line
saying what the payer pays in token units: the merchant's amount and the fees.
  --payer <n>   demo payer index (1; the demo store's button pays as 0)
  --merchant <n> pay as devnet recipient n, a merchant's wallet (the demo store is paid to recipient 0; a refund
                of its orders is paid from there); topped up from devnet payer n when short
Environment: DATA_SERVICE_URL (http://127.0.0.1:4002; the token's EIP-712 domain), RPC_URL (http://127.0.0.1:8545; top-ups).`,
    options: { payer: { type: 'string' }, merchant: { type: 'string' } },
    allowPositionals: true,
  },
  async ({ values, positionals: [command, link, ...rest] }) => {
    if (command !== 'pay' || !link || rest.length > 0) throw new ConfigError('usage: npm run wallet -- pay <payment link> (--help)')
    if (values.payer !== undefined && values.merchant !== undefined) throw new ConfigError('--payer and --merchant name two wallets: give one')
    const merchant = values.merchant === undefined ? undefined : numberFlag(values.merchant, 'merchant', 0, 0, 1_000)
    const index = merchant ?? numberFlag(values.payer, 'payer', 1, 0, 1_000)
    const started = Date.now()
    const { session, final, payer } = await payAsDemoPayer(link, {
      index,
      account: merchant === undefined ? undefined : demoMerchantAccount(merchant),
      rpcUrl: urlSetting(process.env, 'RPC_URL', 'http://127.0.0.1:8545'),
      dataServiceUrl: urlSetting(process.env, 'DATA_SERVICE_URL', 'http://127.0.0.1:4002'),
      onQuote: ({ session: s, total, token }) => {
        const units = (amount: bigint | string) => `${displayAmount(amount, token.decimals)} ${token.symbol}`
        console.log(`paying ${units(total)}: ${units(s.principal)} to ${s.beneficiary} and ${units(total - BigInt(s.principal))} in fees, order reference ${s.orderReference}`)
      },
      onStatus: (push) => console.log(`status: ${push.status}${push.txHash ? ` ${push.txHash}` : ''}`),
    })
    const seconds = ((Date.now() - started) / 1000).toFixed(1)
    if (final.status === 'SUCCESS') {
      console.log(`SUCCESS tx ${final.txHash} (payer ${payer}, order reference ${session.orderReference}, ${seconds} s)`)
      return
    }
    console.log(`FAILURE ${final.failureCategory ?? ''}: ${final.failureReason ?? ''}${final.txHash ? ` tx ${final.txHash}` : ''}`)
    process.exitCode = 1
  },
)
