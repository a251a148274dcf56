/**
 * One test file's world for the checkout engine: an anvil devnet, an embedded PostgreSQL, a real
 * explorer, the real certificate authority (merchants, client certificates, revocation) and the engine
 * on mutual TLS; merchant requests over real TLS sockets with undici, payments signed directly on anvil
 * with a charge's order reference, and what the outbox holds per charge.
 */
import { createTestClient, http, type Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { Agent, fetch } from 'undici'
import { generateMerchantCredentials, type MerchantView } from '../../processor/ca/index.js'
import { createChainClient } from '../../chain/index.js'
import { createPermitTracker, type PermitTracker } from '../../chain/index.js'
import { sendPayment } from '../../chain/index.js'
import { createTxSender, type TxSender } from '../../chain/index.js'
import type { ChargeJson } from '../../processor/charges/index.js'
import { startCheckout, type RunningCheckout } from '../../processor/checkout/index.js'
import { checkoutOptionsFromEnv } from '../../config/index.js'
import { openDatabase, type Database } from '../../processor/db/index.js'
import { readReconciliationCursor } from '../../processor/db/index.js'
import { createLogger, type Logger } from '../../platform/observability/index.js'
import { startTestCa, type TestCa } from './test-ca.js'
import { testDatabase } from '../test-database/index.js'
import { startTestExplorer, waitFor, type TestExplorer } from './test-explorer.js'
import { mineBlockAfter, startLocalChain, type LocalChain } from './local-chain.js'
import { startExplorerRelay, type ExplorerRelay } from './explorer-relay.js'
import { startRpcProxy, type RpcProxy } from './rpc-proxy.js'

export interface Credentials {
  key: string
  cert: string
}

export interface TestMerchant extends MerchantView {
  credentials: Credentials
}

export interface ApiAnswer {
  status: number
  headers: Headers
  body: any
}

export interface RequestInit {
  /** An object is sent as JSON; a string as it is. */
  body?: unknown
  headers?: Record<string, string>
}

export interface CheckoutFixture {
  chain: LocalChain
  db: Database
  explorer: TestExplorer
  /** Between the explorer and anvil when asked for (`explorerRpcProxy`): take it down and the explorer falls behind. */
  explorerRpc: RpcProxy | undefined
  /** Between the engines and anvil when asked for (`engineRpcProxy`): the engines' own node, made to lag, err or hide. */
  engineRpc: RpcProxy | undefined
  /** Between the engines and the explorer when asked for (`explorerRelay`): speaks for a compromised explorer. */
  explorerRelay: ExplorerRelay | undefined
  /** Proxies in front of anvil when asked for (`rpcProxies`): the explorer's and the engine's RPC_URL lists them all, in order. */
  rpcProxies: RpcProxy[]
  /** RPC_URL as the explorer and the engine have it. */
  rpcUrl: string
  ca: TestCa
  checkout: RunningCheckout
  /** Every log line of the engine (debug and up). */
  logs: string[]
  startCheckout(env?: Record<string, string>): Promise<RunningCheckout>
  createMerchant(acquirerId?: Hex): Promise<TestMerchant>
  /** A request over mutual TLS with `credentials` (none: no client certificate). */
  request(credentials: Credentials | undefined, method: string, path: string, init?: RequestInit, checkout?: RunningCheckout): Promise<ApiAnswer>
  createCharge(merchant: TestMerchant, overrides?: Partial<Record<'amount' | 'token' | 'beneficiary' | 'currency' | 'orderId', string>>): Promise<ChargeJson>
  /**
   * Pays the charge on anvil (principal = its amount, to its beneficiary, in its token) unless overridden;
   * resolves once mined. `payerKey` signs instead of devnet payer `payer` (a refund is paid by the beneficiary).
   */
  pay(charge: Payable, overrides?: { token?: Hex; recipient?: Hex; principal?: bigint; payer?: number; payerKey?: Hex }): Promise<Hex>
  rpc<T>(method: string, params?: unknown[]): Promise<T>
  /** A new relayer (its nonces re-read from the chain, e.g. after a revert). */
  resetRelayer(): Promise<void>
  webhookTypes(chargeId: string): Promise<string[]>
  waitForStatus(merchant: TestMerchant, chargeId: string, status: string): Promise<ChargeJson>
  stop(): Promise<void>
}

/** What paying needs of a charge (or of a refund, its recipient in place of the beneficiary). */
export type Payable = Pick<ChargeJson, 'token' | 'beneficiary' | 'amount' | 'orderReference' | 'acquirerId'>

let orderCounter = 0
export const nextOrderId = () => `order-${process.pid}-${++orderCounter}`

export interface FixtureWorld {
  explorerRpcProxy?: boolean
  /** Proxies in front of anvil: the explorer's and the engine's RPC_URL lists them all, in order. */
  rpcProxies?: number
  explorerEnv?: Record<string, string>
  engineRpcProxy?: boolean
  explorerRelay?: boolean
}

export async function startCheckoutFixture(env: Record<string, string> = {}, world: FixtureWorld = {}): Promise<CheckoutFixture> {
  const chain = await startLocalChain()
  const db = await openDatabase(await testDatabase(), createLogger('silent'))
  const explorerRpc = world.explorerRpcProxy ? await startRpcProxy(chain.rpcUrl) : undefined
  const rpcProxies = await Promise.all(Array.from({ length: world.rpcProxies ?? 0 }, () => startRpcProxy(chain.rpcUrl)))
  const rpcUrl = rpcProxies.length > 0 ? rpcProxies.map((proxy) => proxy.url).join(',') : chain.rpcUrl
  const explorer = await startTestExplorer(chain, { RPC_URL: explorerRpc?.url ?? rpcUrl, ...world.explorerEnv })
  const engineRpc = world.engineRpcProxy ? await startRpcProxy(chain.rpcUrl) : undefined
  const explorerRelay = world.explorerRelay ? await startExplorerRelay(explorer.url) : undefined
  const ca = await startTestCa(db)
  const logs: string[] = []
  const log: Logger = createLogger('debug', {}, (line) => logs.push(line) > 0)
  const publicClient = createChainClient({ rpcUrl: chain.rpcUrl, pollingIntervalMs: 50 })
  const agents = new Map<string, Agent>()
  const engines: RunningCheckout[] = []
  let relayer: TxSender
  let permits: PermitTracker

  const fixture: CheckoutFixture = {
    chain,
    db,
    explorer,
    explorerRpc,
    engineRpc,
    explorerRelay,
    rpcProxies,
    rpcUrl,
    ca,
    checkout: undefined as unknown as RunningCheckout,
    logs,
    async startCheckout(more = {}) {
      const options = checkoutOptionsFromEnv({
        RPC_URL: engineRpc?.url ?? rpcUrl,
        SETTLEMENT_CONTRACT: chain.deployment.settlementContract,
        START_BLOCK: String(chain.deployment.startBlock),
        EXPLORER_URL: explorerRelay?.url ?? explorer.url,
        CHECKOUT_PORT: '0',
        CA_DATA_DIR: ca.dataDir,
        POLL_INTERVAL_MS: '50',
        CHECKOUT_EXPIRY_SWEEP_MS: '100',
        CHECKOUT_STANDBY_POLL_MS: '100',
        ...env,
        ...more,
      })
      const engine = await startCheckout(options, { db, log })
      engines.push(engine)
      return engine
    },
    async createMerchant(acquirerId) {
      const merchant = await ca.client.createMerchant({ name: `Store ${++orderCounter}`, webhookUrl: 'http://127.0.0.1:3000/hooks', ...(acquirerId && { acquirerId }) })
      const issued = await generateMerchantCredentials(ca.client, merchant.id)
      return { ...merchant, credentials: { key: issued.privateKeyPem, cert: issued.certificate } }
    },
    async request(credentials, method, path, init = {}, checkout = fixture.checkout) {
      const id = credentials?.cert ?? 'none'
      let agent = agents.get(id)
      if (!agent) {
        agent = new Agent({ connect: { ca: checkout.caCertificatePem, servername: 'localhost', ...credentials } })
        agents.set(id, agent)
      }
      const headers: Record<string, string> = { ...init.headers }
      let body: string | undefined
      if (init.body !== undefined) {
        body = typeof init.body === 'string' ? init.body : JSON.stringify(init.body)
        headers['content-type'] ??= 'application/json'
      }
      const response = await fetch(checkout.url + path, { method, headers, body, dispatcher: agent })
      const text = await response.text()
      return { status: response.status, headers: response.headers as unknown as Headers, body: text && response.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text }
    },
    async createCharge(merchant, overrides = {}) {
      const token = chain.deployment.tokens[0]!
      const { status, body } = await fixture.request(merchant.credentials, 'POST', '/api/v1/charges', {
        body: { amount: '10000000', token: token.address, beneficiary: chain.deployment.recipients[0]!, currency: token.symbol, orderId: nextOrderId(), ...overrides },
      })
      if (status !== 201) throw new Error(`charge creation answered ${status}: ${JSON.stringify(body)}`)
      return body as ChargeJson
    },
    async pay(charge, overrides = {}) {
      const payment = await sendPayment({
        publicClient,
        relayer,
        permits,
        settlementContract: chain.deployment.settlementContract,
        payer: privateKeyToAccount(overrides.payerKey ?? chain.deployment.payerKeys[overrides.payer ?? 0]!),
        token: overrides.token ?? charge.token,
        recipient: overrides.recipient ?? charge.beneficiary,
        principal: overrides.principal ?? BigInt(charge.amount),
        orderReference: charge.orderReference,
        acquirerId: charge.acquirerId,
      })
      await publicClient.waitForTransactionReceipt({ hash: payment.txHash })
      return payment.txHash
    },
    async rpc(method, params = []) {
      const response = await fetch(chain.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) })
      const answer = (await response.json()) as { result: any; error?: { message: string } }
      if (answer.error) throw new Error(`${method}: ${answer.error.message}`)
      return answer.result
    },
    async resetRelayer() {
      relayer = await createTxSender({ publicClient, privateKey: chain.deployment.relayerKey!, chainId: chain.deployment.chainId })
      permits = createPermitTracker(publicClient)
    },
    async webhookTypes(chargeId) {
      const { rows } = await db.pool.query<{ type: string }>(`SELECT type FROM webhook_events WHERE charge_id = $1 ORDER BY sequence`, [chargeId])
      return rows.map((row) => row.type)
    },
    waitForStatus(merchant, chargeId, status) {
      return waitFor(`charge ${chargeId} to be ${status}`, async () => {
        const { body } = await fixture.request(merchant.credentials, 'GET', `/api/v1/charges/${chargeId}`)
        return body.status === status ? (body as ChargeJson) : undefined
      }).catch(async (error: Error) => {
        throw new Error(`${error.message}; ${await feedDiagnostics().catch((e: Error) => `no diagnostics: ${e.message}`)}; engine log:\n${logs.slice(-40).join('\n')}`)
      })
    },
    async stop() {
      for (const engine of engines) await engine.stop().catch(() => {})
      for (const agent of agents.values()) await agent.close().catch(() => {})
      await ca.stop()
      await explorerRelay?.stop()
      await explorer.stop()
      await explorerRpc?.stop()
      await engineRpc?.stop()
      for (const proxy of rpcProxies) await proxy.stop()
      await db.close()
      await chain.stop()
    },
  }
  /** What the engine's expiry sweep sees (feed-time.ts asks the same two questions) beside the chain's own newest blocks. */
  async function feedDiagnostics(): Promise<string> {
    const head = (await explorer.get('/')).body?.indexedHead as { blockNumber: number } | null
    const cursor = await readReconciliationCursor(db.pool)
    const next = head && cursor ? (await explorer.get(`/events?cursor=${cursor}&order=asc&toBlock=${head.blockNumber}&limit=1`)).body?.events?.[0] : undefined
    const latest = Number(await publicClient.getBlockNumber({ cacheTime: 0 }))
    const blocks = await Promise.all([latest - 2, latest - 1, latest].filter((n) => n >= 0).map((n) => publicClient.getBlock({ blockNumber: BigInt(n) })))
    const { rows } = await db.pool.query<{ id: string; status: string; deadline: Date }>('SELECT id, status, deadline FROM charges ORDER BY deadline DESC LIMIT 3')
    return [
      `explorer head ${JSON.stringify(head)}, reconciliation cursor ${cursor}, next settlement after it ${next ? `block ${next.blockNumber} at ${next.timestamp}` : 'none'}`,
      `chain blocks ${blocks.map((b) => `${b.number} at ${b.timestamp} (${b.transactions.length} tx)`).join(', ')}`,
      `newest charges ${rows.map((r) => `${r.id} ${r.status} due ${r.deadline.getTime() / 1000}`).join(', ')}`,
    ].join('; ')
  }

  await fixture.resetRelayer()
  fixture.checkout = await fixture.startCheckout()
  return fixture
}

/** Mines `blocks` empty blocks on anvil. */
export async function mine(chain: LocalChain, blocks: number): Promise<void> {
  await createTestClient({ mode: 'anvil', transport: http(chain.rpcUrl) }).mine({ blocks })
}

/**
 * Mines a block every 200 ms until `check` holds: a new branch built block by block, as a removal needs
 * (the reconciler takes a settlement as gone only once CHECKOUT_REMOVED_AFTER_BLOCKS more blocks lack it).
 */
export function mineUntil<T>(chain: LocalChain, what: string, check: () => Promise<T | undefined | false>): Promise<T> {
  let minedAt = 0
  return waitFor(what, async () => {
    const value = await check()
    if (value !== undefined && value !== false) return value
    if (Date.now() - minedAt >= 200) {
      minedAt = Date.now()
      await mine(chain, 1)
    }
    return undefined
  })
}

/**
 * Waits until a second past the latest of `deadlines` (ISO times) on the wall clock, then mines one
 * empty block stamped past it on the chain's clock, the one expiry goes by (mineBlockAfter).
 */
export async function minePast(chain: LocalChain, ...deadlines: string[]): Promise<void> {
  const deadlineMs = Math.max(...deadlines.map(Date.parse))
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, deadlineMs - Date.now() + 1_000)))
  await mineBlockAfter(chain.rpcUrl, deadlineMs)
}
