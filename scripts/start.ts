/**
 * `npm start`: the whole local stack in one process (src/devnet/stack/run-stack.ts), in a session of its
 * own so that Ctrl-C does not stop anvil and PostgreSQL under the pieces (own-session.ts). Only the flags
 * are read before that, so `--help` answers without loading the pieces.
 */
import { runCli } from '../src/platform/cli/index.js'
import { devnetOptions, devnetOptionsFromFlags, devnetUsage, trafficOptions, trafficSettingsFromFlags, trafficUsage } from '../src/devnet/flags/index.js'
import { runInOwnSession } from '../src/platform/shutdown/index.js'

runCli(
  {
    name: 'start',
    usage: `usage: npm start [-- options]

Starts the local devnet (anvil on 127.0.0.1:8545, chain 31337, contracts deployed), PostgreSQL (embedded
in .data/postgres unless DATABASE_URL is set), the explorer on http://127.0.0.1:4001 (EXPLORER_PORT), the
data service on :4002 (DATA_SERVICE_PORT), the wallet gateway with its broadcast submitter on :4000
(GATEWAY_PORT), the certificate authority on :4005 (CA_PORT, local CA in .data/ca), the checkout engine
on https://127.0.0.1:4003 (CHECKOUT_PORT, mutual TLS) with webhook delivery, the checkout widget on
:4004 (WIDGET_PORT), the demo store on http://127.0.0.1:3000 (STORE_PORT) with its demo merchant, and
demo traffic paying through the gateway, until Ctrl-C.

${devnetUsage}
${trafficUsage}
  --quiet               no traffic progress line`,
    options: { ...devnetOptions, ...trafficOptions, quiet: { type: 'boolean' } },
  },
  async ({ values }) => {
    const devnet = devnetOptionsFromFlags(values)
    const traffic = trafficSettingsFromFlags(values)
    await runInOwnSession()
    const { runStack } = await import('../src/devnet/stack/index.js')
    await runStack({ devnet, traffic, quiet: values.quiet === true })
  },
)
