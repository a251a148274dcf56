/**
 * `npm run admin -- relayer [address]`: the relayer's runway — balance, gas price, the gas one payment
 * takes measured from recent receipts, the cost of a payment and how many payments the balance still
 * pays for — against the warning level the submitter uses (RELAYER_RUNWAY_WARNING_PAYMENTS).
 */
import { formatEther, formatGwei, type Hex, type PublicClient } from 'viem'
import { addressOfKey, relayerRunway } from '../../chain/index.js'
import { privateKeySetting, runwayWarningSetting, type Env } from '../../config/index.js'
import { addressFlag, formatTable } from '../../platform/cli/index.js'
import type { Deployment } from '../../wire/index.js'

export async function runRelayerCommand(args: string[], values: { json?: boolean }, ctx: { publicClient: PublicClient; deployment: Deployment; env: Env }): Promise<void> {
  const { deployment, env } = ctx
  const warnBelow = runwayWarningSetting(env)
  const relayer: Hex =
    args[0] !== undefined
      ? addressFlag(args[0], 'the relayer')
      : addressOfKey(privateKeySetting(env, 'RELAYER_PRIVATE_KEY', deployment.chainId, deployment.relayerKey))
  const runway = await relayerRunway({ publicClient: ctx.publicClient, settlementContract: deployment.settlementContract, relayer })
  const low = runway.paymentsLeft < warnBelow
  if (values.json) {
    const raw = { ...runway, warnBelow, low }
    return console.log(JSON.stringify(raw, (_, v: unknown) => (typeof v === 'bigint' ? v.toString() : v), 2))
  }
  const measured = runway.samples > 0 ? `measured over the last ${runway.samples} payments` : 'no recent payments: the gas limit of one payment'
  console.log(
    formatTable([
      ['relayer', runway.relayer],
      ['balance', `${formatEther(runway.balance)} (${runway.balance} wei)`],
      ['gas price', `${formatGwei(runway.gasPrice)} gwei`],
      ['gas per payment', `${runway.gasPerPayment} (${measured})`],
      ['cost per payment', `${formatEther(runway.costPerPayment)} (${runway.costPerPayment} wei)`],
      ['payments left', runway.paymentsLeft.toString()],
      ['warning below', `${warnBelow} payments (RELAYER_RUNWAY_WARNING_PAYMENTS)${low ? ': LOW, top up the relayer' : ''}`],
    ]),
  )
}
