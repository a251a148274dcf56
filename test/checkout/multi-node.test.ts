/**
 * RPC_URL with two nodes of one chain (two proxies in front of one anvil) for the explorer, the
 * wallet gateway, the submitter and the checkout engine: the first goes down, comes back, lags (its
 * head frozen) and catches up while wallets pay charges through the gateway and the submitter;
 * indexing, payments and reconciliation go on, every charge settles once, and reads go back to the
 * first node when it is fine again.
 */
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { privateKeyToAccount } from 'viem/accounts'
import type { Hex } from 'viem'
import { createChainClient } from '../../src/chain/create-chain-client.js'
import { createPermitTracker } from '../../src/chain/payments/permit-tracker.js'
import { stablecoinAbi } from '../../src/chain/abi/stablecoin-abi.js'
import { gatewayOptionsFromEnv } from '../../src/config/gateway-options.js'
import type { ChargeJson } from '../../src/processor/charges/index.js'
import { startGateway, type RunningGateway } from '../../src/processor/gateway/index.js'
import type { RunningSubmitter } from '../../src/processor/submitter/start-submitter.js'
import { createLogger } from '../../src/platform/observability/logger.js'
import type { SessionToken } from '../../src/sdk/wallet/payment-session.js'
import { WalletClient } from '../../src/sdk/wallet/wallet-client.js'
import { waitFor, settlementRefsOnChain, startTestSubmitter, mine, startCheckoutFixture, type CheckoutFixture, type TestMerchant } from '../../src/devnet/testing/index.js'
import type { RpcRequest } from '../../src/devnet/testing/index.js'

const STALL = { RPC_STALL_SECONDS: '1' }
// Asked of every node (probes) or sent to every node that is fine (transactions): not a sign of the node in use.
const EVERY_NODE = new Set(['eth_blockNumber', 'eth_chainId', 'eth_sendRawTransaction'])

let f: CheckoutFixture
let merchant: TestMerchant
let submitter: RunningSubmitter
let gateway: RunningGateway
const wallets: WalletClient[] = []
let sessionToken: SessionToken
/** Reads each node answered that only the node in use is asked. */
const reads = [0, 0]
let frozenHead: string | undefined
const paid: ChargeJson[] = []

before(async () => {
  f = await startCheckoutFixture({ ...STALL, CONFIRMATION_BLOCKS: '1' }, { rpcProxies: 2, explorerEnv: STALL })
  for (const [i, proxy] of f.rpcProxies.entries()) {
    proxy.rewrite = (request: RpcRequest, result: unknown) => {
      if (!EVERY_NODE.has(request.method ?? '')) reads[i]!++
      return i === 0 && request.method === 'eth_blockNumber' && frozenHead !== undefined ? frozenHead : result
    }
  }
  merchant = await f.createMerchant()
  submitter = await startTestSubmitter(f.chain, f.db, { RPC_URL: f.rpcUrl, ...STALL, SUBMITTER_POLL_MS: '20' })
  const { deployment } = f.chain
  gateway = await startGateway(
    gatewayOptionsFromEnv({
      RPC_URL: f.rpcUrl,
      ...STALL,
      SETTLEMENT_CONTRACT: deployment.settlementContract,
      START_BLOCK: String(deployment.startBlock),
      EXPLORER_URL: f.explorer.url,
      GATEWAY_PORT: '0',
      POLL_INTERVAL_MS: '50',
      GATEWAY_RELAYER_REFRESH_MS: '200',
    }),
    { db: f.db, log: createLogger('silent') },
  )
  // One wallet per payment of a step: a payer's permits of one token are taken in turn.
  for (const key of deployment.payerKeys.slice(0, 3)) {
    const wallet = new WalletClient({ url: gateway.wsUrl, account: privateKeyToAccount(key), chainId: deployment.chainId, timeout: 30_000 })
    await wallet.connect()
    wallets.push(wallet)
  }
  // The wallet's own view of the token, read straight from anvil (as the data service would hand it).
  const direct = createChainClient({ rpcUrl: f.chain.rpcUrl })
  const token = deployment.tokens[0]!.address
  const domain = await createPermitTracker(direct).tokenDomain(token)
  const domainSeparator = await direct.readContract({ address: token, abi: stablecoinAbi, functionName: 'DOMAIN_SEPARATOR' })
  sessionToken = { name: domain.name, version: domain.version, domainSeparator }
})
after(async () => {
  for (const wallet of wallets) wallet.disconnect()
  await gateway?.stop()
  await submitter?.stop()
  await f?.stop()
})

/** Charges paid by wallets through the gateway and the submitter; resolves once each is settled. */
async function payCharges(count: number): Promise<void> {
  const charges: ChargeJson[] = []
  for (let i = 0; i < count; i++) charges.push(await f.createCharge(merchant))
  const finals = await Promise.all(
    charges.map((charge, i) =>
      wallets[i % wallets.length]!.pay(
        {
          token: charge.token as Hex,
          beneficiary: charge.beneficiary as Hex,
          principal: charge.amount,
          orderReference: charge.orderReference as Hex,
          acquirerId: charge.acquirerId as Hex,
          deadline: Math.floor(Date.parse(charge.deadline) / 1000),
          chainId: f.chain.deployment.chainId,
          settlementContract: f.chain.deployment.settlementContract,
          walletGatewayUrl: gateway.wsUrl,
        },
        sessionToken,
      ),
    ),
  )
  assert.deepEqual(finals.map((final) => final.status), finals.map(() => 'SUCCESS'), JSON.stringify(finals))
  // A later payment's block may already be the confirmation of an earlier one.
  for (const charge of charges) await seen(charge.id)
  await mine(f.chain, 1)
  for (const charge of charges) await f.waitForStatus(merchant, charge.id, 'settled')
  paid.push(...charges)
}

function seen(chargeId: string): Promise<unknown> {
  return waitFor(`charge ${chargeId} seen paid`, async () => {
    const { body } = await f.request(merchant.credentials, 'GET', `/api/v1/charges/${chargeId}`)
    return body.status === 'confirming' || body.status === 'settled'
  })
}

/** Waits until every piece reads from the first node again, then pays and checks that the second node was not read. */
async function readsReturnToFirst(): Promise<void> {
  const atFirst = reads[0]!
  await waitFor('reads on the first node again', () => reads[0]! > atFirst + 20, 10_000)
  // Every client probes at least once a second while it is used; give each its probe.
  await new Promise((resolve) => setTimeout(resolve, 1_500))
  const before = [...reads]
  await payCharges(2)
  const second = reads[1]! - before[1]!
  const first = reads[0]! - before[0]!
  assert.ok(second === 0, `after the first node came back the second still answered ${second} reads (the first ${first})`)
  assert.ok(first > 0)
}

test('both nodes fine: everything reads from the first', async () => {
  await payCharges(2)
  assert.ok(reads[0]! > 0)
  assert.equal(reads[1], 0)
})

/** Pays three charges, doing `act` once the gateway has queued the first of them. */
async function whilePaying(act: () => Promise<void> | void): Promise<void> {
  const submissions = async () => Number((await f.db.pool.query<{ n: string }>('SELECT count(*) AS n FROM submissions')).rows[0]!.n)
  const before = await submissions()
  const paying = payCharges(3)
  await waitFor('the payments under way', async () => (await submissions()) > before, 10_000)
  await act()
  await paying
}

test('the first node goes down while payments are on their way: indexing, payments and reconciliation go on through the second', async () => {
  const atSecond = reads[1]!
  await whilePaying(() => {
    f.rpcProxies[0]!.down = true
  })
  assert.ok(reads[1]! > atSecond, 'the second node answered the reads')
})

test('the first node back: reads return to it', async () => {
  f.rpcProxies[0]!.down = false
  await readsReturnToFirst()
})

test("the first node's head frozen while payments are on their way: the second takes over after RPC_STALL_SECONDS", async () => {
  const atSecond = reads[1]!
  await whilePaying(async () => {
    frozenHead = await f.rpc<string>('eth_blockNumber')
  })
  assert.ok(reads[1]! > atSecond, 'the second node answered the reads')
})

test('the first node caught up again: reads return to it', async () => {
  frozenHead = undefined
  await readsReturnToFirst()
})

test('nothing lost or repeated: each charge settled once, one settlement each on chain, the explorer has them all', async () => {
  const onChain = await settlementRefsOnChain(f.chain)
  for (const charge of paid) {
    assert.deepEqual(await f.webhookTypes(charge.id), ['charge.confirming', 'charge.settled'], charge.id)
    assert.equal(onChain.filter((s) => s.orderReference === charge.orderReference.toLowerCase()).length, 1, charge.id)
  }
  assert.equal(onChain.length, paid.length)
  const { body } = await f.explorer.get(`/events?limit=100`)
  assert.equal(body.events.length, paid.length)
})
