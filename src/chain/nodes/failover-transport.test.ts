import assert from 'node:assert/strict'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { after, before, test } from 'node:test'
import { ConfigError } from '../../config/index.js'
import { createChainClient } from '../create-chain-client.js'
import { checkChainId } from './check-chain-id.js'

/** A JSON-RPC node that answers from its fields, and counts what it was asked. */
interface FakeNode {
  url: string
  chainId: number
  head: number
  down: boolean
  /** Answers this late (past the client's timeout: a node that hangs). */
  delayMs: number
  asked: string[]
  server: Server
}

async function fakeNode(chainId = 31337): Promise<FakeNode> {
  const node = { chainId, head: 100, down: false, delayMs: 0, asked: [] as string[] } as FakeNode
  node.server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (chunk: Buffer) => chunks.push(chunk))
    req.on('end', async () => {
      if (node.delayMs > 0) await new Promise((resolve) => setTimeout(resolve, node.delayMs))
      if (node.down) return res.writeHead(503).end('down')
      const body = JSON.parse(Buffer.concat(chunks).toString()) as { id: number; method: string } | { id: number; method: string }[]
      const answer = (request: { id: number; method: string }) => {
        node.asked.push(request.method)
        const result = { eth_chainId: `0x${node.chainId.toString(16)}`, eth_blockNumber: `0x${node.head.toString(16)}`, eth_sendRawTransaction: `0x${'ab'.repeat(32)}`, eth_getLogs: [] }[request.method]
        return { jsonrpc: '2.0', id: request.id, result: result ?? null }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(Array.isArray(body) ? body.map(answer) : answer(body)))
    })
  })
  await new Promise<void>((resolve) => node.server.listen(0, '127.0.0.1', resolve))
  // A path and a query as a provider's key would be: never to be shown.
  node.url = `http://127.0.0.1:${(node.server.address() as AddressInfo).port}/v2/secret-key?apikey=secret`
  return node
}

const nodes: FakeNode[] = []
before(async () => {
  for (let i = 0; i < 3; i++) nodes.push(await fakeNode())
})
after(() => {
  for (const node of nodes) {
    node.server.closeAllConnections()
    node.server.close()
  }
})
const reset = () => {
  for (const node of nodes) Object.assign(node, { chainId: 31337, head: 100, down: false, delayMs: 0, asked: [] })
}
const host = (node: FakeNode) => new URL(node.url).host
const count = (node: FakeNode, method: string) => node.asked.filter((m) => m === method).length
const clientOf = (...of: FakeNode[]) =>
  createChainClient({ rpcUrl: of[0]!.url, fallbackRpcUrls: of.slice(1).map((n) => n.url), rpcStallMs: 300, chainId: 31337, retryCount: 0, timeoutMs: 1_000 })

test('CHAIN_ID holds for every node that answers; a wrong one is named by its place and host, never its key', async () => {
  reset()
  nodes[1]!.chainId = 5
  const error = await checkChainId(clientOf(nodes[0]!, nodes[1]!), 31337).then(
    () => assert.fail('a node of another chain was accepted'),
    (e: unknown) => e as Error,
  )
  assert.ok(error instanceof ConfigError)
  assert.equal(error.message, `CHAIN_ID is 31337 but RPC_URL's node 2 (${host(nodes[1]!)}) serves chain 5`)
  // A node down at start is checked later; none answering stops the start.
  nodes[1]!.chainId = 31337
  nodes[0]!.down = true
  await checkChainId(clientOf(nodes[0]!, nodes[1]!), 31337)
  nodes[1]!.down = true
  const none = await checkChainId(clientOf(nodes[0]!, nodes[1]!), 31337).then(() => undefined, (e: Error) => e)
  assert.match(String(none?.message), new RegExp(`^no node of RPC_URL answers \\(RPC_URL's node 1 \\(${host(nodes[0]!)}\\) does not answer: `))
  assert.doesNotMatch(String(none?.message), /secret/)
})

test('reads go to the first node; while it fails to the next at once; back to the first once it answers', async () => {
  reset()
  const client = clientOf(nodes[0]!, nodes[1]!)
  await checkChainId(client, 31337)
  await client.getLogs()
  assert.equal(count(nodes[0]!, 'eth_getLogs'), 1)
  nodes[0]!.down = true
  await client.getLogs()
  await client.getLogs()
  assert.equal(count(nodes[1]!, 'eth_getLogs'), 2, 'each read answered by the second')
  assert.deepEqual(client.transport.nodes().map((n) => [n.host, n.current, n.failed]), [
    [host(nodes[0]!), false, true],
    [host(nodes[1]!), true, false],
  ])
  nodes[0]!.down = false
  await new Promise((resolve) => setTimeout(resolve, 100))
  // The read after the probe interval sends the probes; the one after them goes to the first again.
  await client.getLogs()
  await waitUntil(() => client.transport.nodes()[0]!.current)
  const before = count(nodes[1]!, 'eth_getLogs')
  await client.getLogs()
  assert.equal(count(nodes[1]!, 'eth_getLogs'), before)
})

test('a node that does not answer within the timeout is left for the next, for this request and the following ones', async () => {
  reset()
  const client = clientOf(nodes[0]!, nodes[1]!)
  await checkChainId(client, 31337)
  nodes[0]!.delayMs = 2_000
  const started = Date.now()
  await client.getLogs()
  assert.ok(Date.now() - started < 1_900, 'answered by the second after the 1 s timeout')
  assert.equal(count(nodes[1]!, 'eth_getLogs'), 1)
  await client.getLogs()
  assert.equal(count(nodes[1]!, 'eth_getLogs'), 2)
  assert.equal(client.transport.nodes()[0]!.failed, true)
})

test('a head that stops while another moves on is left after the stall time; the raw byte path follows the same choice', async () => {
  reset()
  const client = clientOf(nodes[0]!, nodes[1]!)
  await checkChainId(client, 31337)
  const started = Date.now()
  while (!client.transport.nodes()[1]!.current && Date.now() - started < 5_000) {
    nodes[1]!.head++
    await client.getBlockNumber({ cacheTime: 0 })
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  assert.deepEqual(client.transport.nodes().map((n) => n.lagging), [true, false])
  assert.ok(Date.now() - started >= 300, 'not before RPC_STALL_SECONDS')
  const bytes = await client.transport.requestBytes('eth_getLogs', [{}], 1_000)
  assert.deepEqual(JSON.parse(bytes.toString()).result, [])
  assert.equal(count(nodes[0]!, 'eth_getLogs'), 0)
  assert.equal(count(nodes[1]!, 'eth_getLogs'), 1)
})

test('a transaction goes to every node that is fine; a node of another chain is never asked anything but its chain id', async () => {
  reset()
  nodes[2]!.chainId = 5
  const client = clientOf(nodes[0]!, nodes[1]!, nodes[2]!)
  await assert.rejects(checkChainId(client, 31337), /node 3/)
  await client.request({ method: 'eth_sendRawTransaction', params: ['0x02'] })
  assert.deepEqual([count(nodes[0]!, 'eth_sendRawTransaction'), count(nodes[1]!, 'eth_sendRawTransaction'), count(nodes[2]!, 'eth_sendRawTransaction')], [1, 1, 0])
  nodes[0]!.down = true
  nodes[1]!.down = true
  await assert.rejects(client.getLogs())
  assert.deepEqual(nodes[2]!.asked, ['eth_chainId'])
})

async function waitUntil(condition: () => boolean): Promise<void> {
  for (const started = Date.now(); !condition(); await new Promise((resolve) => setTimeout(resolve, 20))) {
    if (Date.now() - started > 5_000) assert.fail('timed out')
  }
}
