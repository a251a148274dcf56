/**
 * The wallet gateway under many sockets from one address (issue 21, item 4), over real WebSockets to a
 * real gateway on anvil whose node is reached through a counting RPC relay. Clients come from several
 * loopback addresses (127.0.0.1, .2, …), so one address can be capped while another is not.
 * - Connections: past GATEWAY_MAX_CONNECTIONS_PER_IP from one address the upgrade is refused (429
 *   problem); another address still connects; past GATEWAY_MAX_CONNECTIONS everyone gets 503.
 * - Messages: the connections of one address share GATEWAY_IP_MESSAGE_BURST, then
 *   GATEWAY_IP_MESSAGES_PER_SECOND; past it RATE_LIMIT_EXCEEDED, while another address is answered in full.
 * - Chain reads: the same read asked again before the chain moves is answered from the gateway's cache
 *   (one eth_call per distinct read, not one per message); a new block makes it read again.
 */
import assert from 'node:assert/strict'
import { after, before, test } from 'node:test'
import { createTestClient, http, type Hex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import type { RunningGateway } from '../../src/processor/gateway/index.js'
import { waitFor, startRpcProxy, type RpcProxy } from '../../src/devnet/testing/index.js'
import { connectGateway, type GatewayTestClient } from '../helpers/gateway-client.js'
import { startGatewayFixture, type GatewayFixture } from './fixture.js'

const PER_IP = 6
const TOTAL = 9
const IP_BURST = 40

let f: GatewayFixture
let proxy: RpcProxy
let gateway: RunningGateway
let usdc: Hex
let ethCalls = 0
const opened: GatewayTestClient[] = []

before(async () => {
  f = await startGatewayFixture()
  usdc = f.tokens[0]!.domainSeparator
  proxy = await startRpcProxy(f.chain.rpcUrl)
  proxy.rewrite = (request, result) => {
    if (request.method === 'eth_call') ethCalls++
    return result
  }
  gateway = await f.startGateway({
    RPC_URL: proxy.url,
    GATEWAY_MAX_CONNECTIONS: String(TOTAL),
    GATEWAY_MAX_CONNECTIONS_PER_IP: String(PER_IP),
    GATEWAY_IP_MESSAGES_PER_SECOND: '5',
    GATEWAY_IP_MESSAGE_BURST: String(IP_BURST),
  })
})
after(async () => {
  await Promise.all(opened.map((c) => c.close()))
  await f.stop()
  await proxy.stop()
})

async function connectFrom(localAddress: string): Promise<GatewayTestClient> {
  const client = await connectGateway(gateway.wsUrl, privateKeyToAccount(generatePrivateKey()), f.chainId, { localAddress })
  opened.push(client)
  return client
}
const closeAll = async () => {
  await Promise.all(opened.splice(0).map((c) => c.close()))
  await waitFor('the gateway to see every connection closed', () => gateway.connections() === 0)
}

test('connections: one address is capped at GATEWAY_MAX_CONNECTIONS_PER_IP (429), the gateway at GATEWAY_MAX_CONNECTIONS (503)', async () => {
  for (let i = 0; i < PER_IP; i++) await connectFrom('127.0.0.1')
  await assert.rejects(connectFrom('127.0.0.1'), /upgrade refused with 429/)
  for (let i = PER_IP; i < TOTAL; i++) await connectFrom('127.0.0.2')
  await assert.rejects(connectFrom('127.0.0.3'), /upgrade refused with 503/)
  assert.equal(gateway.connections(), TOTAL)
  const answer = await opened[0]!.request('GET_NONCE', { domainSeparator: usdc })
  assert.equal(answer.type, 'NONCE_RESULT', 'the connections held keep being served')

  await opened.splice(0, 1)[0]!.close()
  await waitFor('a freed slot', () => gateway.connections() === TOTAL - 1)
  await connectFrom('127.0.0.1')
  await closeAll()
})

test('messages: the connections of one address share one budget; another address is answered in full', async (t) => {
  const flood = await Promise.all([1, 2, 3, 4].map(() => connectFrom('127.0.0.1')))
  const other = await connectFrom('127.0.0.2')
  // Signed beforehand, so that all 80 leave at once whatever the machine's load.
  const signed = await Promise.all(flood.flatMap((c) => Array.from({ length: 20 }, async () => ({ c, envelope: await c.sign('GET_NONCE', { domainSeparator: usdc }) }))))
  const answers = await Promise.all(signed.map(({ c, envelope }) => c.sendAndAnswer(envelope)))
  const refused = answers.filter((m) => m.errorCode === 'RATE_LIMIT_EXCEEDED').length
  t.diagnostic(`${refused} of ${answers.length} refused`)
  assert.ok(refused >= answers.length - IP_BURST - 10, `${refused} of ${answers.length} refused (burst ${IP_BURST} per address, each connection within its own 40)`)
  assert.ok(answers.length - refused >= IP_BURST - 5, 'the address burst is served')
  const others = await Promise.all(Array.from({ length: 20 }, () => other.request('GET_NONCE', { domainSeparator: usdc })))
  assert.deepEqual(others.map((m) => m.type), Array(20).fill('NONCE_RESULT'))
  assert.ok(flood.every((c) => c.closed === undefined), 'refused, not closed')
  await closeAll()
})

test('chain reads: asked again before the chain moves, answered from the cache; a new block reads again', async (t) => {
  const clients = await Promise.all(['127.0.0.4', '127.0.0.5', '127.0.0.6'].map(connectFrom))
  const fees = { domainSeparator: usdc, amount: '7000000', acquirerId: `0x${'0'.repeat(32)}` }
  await clients[0]!.request('GET_FEES', fees)
  const before = ethCalls
  const answers = await Promise.all(
    clients.flatMap((c) => [...Array(6).keys()].flatMap(() => [c.request('GET_FEES', fees), c.request('GET_NONCE', { domainSeparator: usdc }), c.request('GET_BALANCE', { domainSeparators: [usdc] })])),
  )
  assert.ok(answers.every((m) => m.type !== 'ERROR'), JSON.stringify(answers.find((m) => m.type === 'ERROR')))
  assert.equal(new Set(answers.filter((m) => m.type === 'FEES_RESULT').map((m) => JSON.stringify(m.brokenDownAmount))).size, 1)
  const calls = ethCalls - before
  t.diagnostic(`${calls} eth_call for ${answers.length} reads`)
  // 54 reads: the fees once (already cached), one nonce and one balance per caller.
  assert.ok(calls <= 2 * clients.length, `${calls} eth_call for 54 reads of ${1 + 2 * clients.length} distinct values`)

  const node = createTestClient({ mode: 'anvil', transport: http(f.chain.rpcUrl) })
  await node.mine({ blocks: 1 })
  await waitFor('a read after the new block', async () => {
    const at = ethCalls
    await clients[0]!.request('GET_FEES', fees)
    return ethCalls > at
  })
  await closeAll()
})
