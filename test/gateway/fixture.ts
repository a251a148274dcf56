/**
 * One test file's world: an anvil devnet, an embedded PostgreSQL, a real explorer and a real gateway
 * (more gateway instances on the same database on request), what the chain says about the tokens read
 * independently with viem, and signed payment requests built the way a wallet builds them.
 */
import { createPublicClient, http, type Hex, type LocalAccount, type PublicClient } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { settlementAbi } from '../../src/chain/abi/settlement-abi.js'
import { stablecoinAbi } from '../../src/chain/abi/stablecoin-abi.js'
import { randomBytes16, ZERO_BYTES16 } from '../../src/wire/order-reference.js'
import { transferRequestOf, type BuyAcquiringPackRequest, type TransferRequest } from '../../src/wire/payment-request.js'
import { signPayment } from '../../src/wire/sign-payment.js'
import { signPermitPair } from '../../src/wire/sign-permit-pair.js'
import { buyAcquiringPackTypes, type TokenDomain } from '../../src/wire/typed-data.js'
import { gatewayOptionsFromEnv } from '../../src/config/gateway-options.js'
import { openDatabase, type Database } from '../../src/processor/db/open-database.js'
import { startGateway, type RunningGateway } from '../../src/processor/gateway/index.js'
import type { Transfer } from '../../src/wire/gateway-messages.js'
import type { PaymentSession, SessionToken } from '../../src/sdk/wallet/payment-session.js'
import { createLogger } from '../../src/platform/observability/logger.js'
import type { Settlement } from '../../src/wire/settlement.js'
import { testDatabase } from '../../src/devnet/test-database/index.js'
import { startTestExplorer, type TestExplorer, startLocalChain, type LocalChain } from '../../src/devnet/testing/index.js'
import { connectGateway, type GatewayTestClient } from '../helpers/gateway-client.js'

export interface FixtureToken {
  address: Hex
  symbol: string
  domainSeparator: Hex
  domain: TokenDomain
}

export interface PaymentParams {
  token: FixtureToken
  recipient?: Hex
  principal?: bigint
  acquirerId?: Hex
  /** Default: the token's current nonce for the payer. */
  nonce?: bigint
  /** Unix seconds; default an hour ahead. */
  deadline?: bigint
  payloadId?: string
}

export interface GatewayFixture {
  chain: LocalChain
  db: Database
  explorer: TestExplorer
  gateway: RunningGateway
  publicClient: PublicClient
  chainId: number
  contract: Hex
  tokens: FixtureToken[]
  payers: LocalAccount[]
  /** Another gateway process on the same database and chain. */
  startGateway(env?: Record<string, string>): Promise<RunningGateway>
  connect(account: LocalAccount, gateway?: RunningGateway): Promise<GatewayTestClient>
  signedPayment(payer: LocalAccount, params: PaymentParams): Promise<TransferRequest>
  /** A charge session as the widget hands it to a wallet (first token, a fresh order reference), and its token for `pay`. */
  paymentSession(params?: { principal?: bigint; recipient?: Hex; gatewayUrl?: string }): { session: PaymentSession; token: SessionToken }
  /** An acquiring pack for a fresh acquiring wallet, paid by `payer` at the contract's price. */
  signedAcquiring(payer: LocalAccount, params: { token: FixtureToken; feePercent: number }): Promise<BuyAcquiringPackRequest>
  stop(): Promise<void>
}

const log = createLogger('silent')

export async function startGatewayFixture(env: Record<string, string> = {}): Promise<GatewayFixture> {
  const chain = await startLocalChain()
  const db = await openDatabase(await testDatabase(), log)
  const explorer = await startTestExplorer(chain)
  const { deployment } = chain
  const publicClient = createPublicClient({ transport: http(chain.rpcUrl) })
  const tokens = await Promise.all(deployment.tokens.map((token) => readToken(publicClient, token.address, token.symbol)))
  const gateways: RunningGateway[] = []
  const clients: GatewayTestClient[] = []

  const fixture: GatewayFixture = {
    chain,
    db,
    explorer,
    gateway: undefined as unknown as RunningGateway,
    publicClient,
    chainId: deployment.chainId,
    contract: deployment.settlementContract.toLowerCase() as Hex,
    tokens,
    payers: deployment.payerKeys.map((key) => privateKeyToAccount(key)),
    async startGateway(overrides = {}) {
      const options = gatewayOptionsFromEnv({
        RPC_URL: chain.rpcUrl,
        SETTLEMENT_CONTRACT: deployment.settlementContract,
        START_BLOCK: String(deployment.startBlock),
        EXPLORER_URL: explorer.url,
        GATEWAY_PORT: '0',
        POLL_INTERVAL_MS: '50',
        GATEWAY_RELAYER_REFRESH_MS: '200',
        LOG_LEVEL: 'silent',
        ...env,
        ...overrides,
      })
      const gateway = await startGateway(options, { db, log })
      gateways.push(gateway)
      return gateway
    },
    async connect(account, gateway = fixture.gateway) {
      const client = await connectGateway(gateway.wsUrl, account, deployment.chainId)
      clients.push(client)
      return client
    },
    async signedPayment(payer, params) {
      const acquirerId = params.acquirerId ?? ZERO_BYTES16
      const principal = params.principal ?? 5_000_000n
      const [fee, nonce] = await Promise.all([
        publicClient.readContract({ address: deployment.settlementContract, abi: settlementAbi, functionName: 'calculateFees', args: [principal, acquirerId] }),
        params.nonce ?? publicClient.readContract({ address: params.token.address, abi: stablecoinAbi, functionName: 'nonces', args: [payer.address] }),
      ])
      const signed = await signPayment({
        payer,
        settlementContract: deployment.settlementContract,
        tokenDomain: params.token.domain,
        recipient: params.recipient ?? deployment.recipients[0]!,
        principal,
        fee,
        permitNonce: nonce,
        deadline: params.deadline ?? BigInt(Math.floor(Date.now() / 1000) + 3600),
        orderReference: randomBytes16(),
        acquirerId,
      })
      return transferRequestOf(signed, params.payloadId ?? crypto.randomUUID())
    },
    paymentSession({ principal = 2_000_000n, recipient = deployment.recipients[0]!, gatewayUrl = fixture.gateway.wsUrl } = {}) {
      const token = tokens[0]!
      const session: PaymentSession = {
        token: token.address,
        beneficiary: recipient,
        principal: principal.toString(),
        orderReference: randomBytes16(),
        acquirerId: ZERO_BYTES16,
        deadline: Math.floor(Date.now() / 1000) + 600,
        chainId: deployment.chainId,
        settlementContract: fixture.contract,
        walletGatewayUrl: gatewayUrl,
      }
      return { session, token: { ...token.domain, domainSeparator: token.domainSeparator } }
    },
    async signedAcquiring(payer, { token, feePercent }) {
      const [price, nonce] = await Promise.all([
        publicClient.readContract({ address: deployment.settlementContract, abi: settlementAbi, functionName: 'acquiringPrice' }),
        publicClient.readContract({ address: token.address, abi: stablecoinAbi, functionName: 'nonces', args: [payer.address] }),
      ])
      const acquiring = privateKeyToAccount(generatePrivateKey()).address.toLowerCase() as Hex
      const permit = { owner: payer.address, spender: deployment.settlementContract, value: price, nonce, deadline: BigInt(Math.floor(Date.now() / 1000) + 3600) }
      const sigs = await signPermitPair({
        payer,
        tokenDomain: token.domain,
        permit,
        settlementContract: deployment.settlementContract,
        binding: {
          types: buyAcquiringPackTypes,
          primaryType: 'BuyAcquiringPackPermitParams',
          message: { token: token.address, feeValue: BigInt(feePercent), acquiring, permitParams: permit },
        },
      })
      return {
        buyAcquiringPackParams: {
          token: token.address,
          feeValue: String(feePercent),
          acquiring,
          permitParams: { owner: payer.address, spender: deployment.settlementContract, value: price.toString(), nonce: nonce.toString(), deadline: permit.deadline.toString() },
        },
        buyAcquiringPackSig: { v: sigs.v2, r: sigs.r2, s: sigs.s2 },
        permitSig: { v: sigs.v1, r: sigs.r1, s: sigs.s1 },
        payloadId: crypto.randomUUID(),
      }
    },
    async stop() {
      await Promise.all(clients.map((client) => client.close().catch(() => {})))
      for (const gateway of gateways) await gateway.stop()
      await explorer.stop()
      await db.close()
      await chain.stop()
    },
  }
  fixture.gateway = await fixture.startGateway()
  return fixture
}

/** The transfer record a wallet should get for a settlement read from the chain (written out, not the gateway's code). */
export function expectedTransfer(s: Settlement, direction: 'IN' | 'OUT'): Transfer {
  return {
    domainSeparator: s.domainSeparator,
    txHash: s.txHash,
    blockNumber: s.blockNumber,
    logIndex: s.logIndex,
    timestamp: s.timestamp,
    from: s.payer,
    to: s.recipient,
    value: s.amount,
    fee: s.fee,
    orderReference: s.orderReference,
    acquirerId: s.acquirerId,
    direction,
  }
}

async function readToken(publicClient: PublicClient, address: Hex, symbol: string): Promise<FixtureToken> {
  const [domainSeparator, [, name, version, chainId, verifyingContract]] = await Promise.all([
    publicClient.readContract({ address, abi: stablecoinAbi, functionName: 'DOMAIN_SEPARATOR' }),
    publicClient.readContract({ address, abi: stablecoinAbi, functionName: 'eip712Domain' }),
  ])
  return {
    address: address.toLowerCase() as Hex,
    symbol,
    domainSeparator: domainSeparator.toLowerCase() as Hex,
    domain: { name, version, chainId: Number(chainId), verifyingContract: verifyingContract.toLowerCase() as Hex },
  }
}
