/**
 * A JSON-RPC node on 127.0.0.1 serving a synthetic chain, so the real indexer can be measured
 * without anvil being the bottleneck. It answers what the explorer asks (eth_chainId,
 * eth_blockNumber, eth_getLogs, eth_getBlockByNumber, eth_call for symbol()/decimals()) and what Ponder (the
 * peers section) asks besides: blocks by hash, with their transactions (one per settlement, as Ponder
 * checks each log against its block's transactions) and a zero logsBloom (which Ponder reads as "ask for
 * the logs"), and eth_getLogs by blockHash; and the header fields every node sends, which Envio's RPC source
 * (ethers' block formatter) requires. Like
 * public nodes, refuses an eth_getLogs range with more than `logCap` results, which exercises the
 * indexer's adaptive range. `bench_grow [blocksPerSecond]` makes the chain grow from now on (0 stops it)
 * and answers `{ head, at }`: block head + k appears at `at` + k / rate seconds (wall clock, ms).
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { PERMITTED_TRANSFER_TOPIC } from '../../src/explorer/indexer/index.js'
import type { Hex } from '../../src/wire/index.js'
import { SyntheticChain, tokenInfoOf } from '../data/synthetic-chain.js'
import { logsBloom } from './logs-bloom.js'
import { syntheticToken } from '../../src/devnet/testing/index.js'

/** Header fields the synthetic chain has no use for, with the values of a post-merge block. */
const FIXED_HEADER = { difficulty: '0x0', nonce: '0x0000000000000000', miner: '0x0000000000000000000000000000000000000000', gasLimit: '0x1c9c380', gasUsed: '0x0', extraData: '0x', baseFeePerGas: '0x0' }

export interface FakeRpcOptions {
  chain: SyntheticChain
  contract: Hex
  chainId: number
  head: number
  logCap?: number
  /** Logs carry `blockTimestamp` (newer nodes do), sparing the indexer a header read per block. */
  logTimestamps?: boolean
}

export interface FakeRpc {
  url: string
  server: Server
  /** Served requests by method. */
  calls: Record<string, number>
  close(): Promise<void>
}

interface Request {
  id: number | string
  method: string
  params?: unknown[]
}

class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message)
  }
}

const hex = (n: number | bigint) => `0x${n.toString(16)}`
const word = (value: string) => value.padStart(64, '0')
const SYMBOL = '0x95d89b41'
const DECIMALS = '0x313ce567'
const ZERO_BLOOM = `0x${'0'.repeat(512)}`
const ZERO_HASH = `0x${'0'.repeat(64)}`
/** The inverse of blockHashOf (bench/data/synthetic-chain.ts); -1 for a hash it did not make. */
const blockOfHash = (hash: unknown) => (typeof hash === 'string' && /^0xb1[0-9a-f]{62}$/i.test(hash) ? Number.parseInt(hash.slice(4), 16) : -1)

export async function startFakeRpc(options: FakeRpcOptions): Promise<FakeRpc> {
  const { chain, contract, chainId, logCap = 10_000, logTimestamps = true } = options
  let baseHead = options.head
  let growth: { from: number; at: number; perSecond: number } | undefined
  const calls: Record<string, number> = {}
  const tokens = new Map(Array.from({ length: chain.shape.tokens }, (_, i) => [syntheticToken(i), tokenInfoOf(i)]))

  const head = () => (growth ? growth.from + Math.floor(((performance.now() - growth.at) / 1000) * growth.perSecond) : baseHead)
  const blockParam = (p: unknown) => (p === 'latest' || p === undefined ? head() : Number(p))

  function logsJson(from: number, to: number): string {
    let total = 0
    for (let b = from; b <= to; b++) {
      total += chain.settlementsIn(b)
      if (total > logCap) throw new RpcError(-32005, `query returned more than ${logCap} results`)
    }
    const parts: string[] = []
    for (let b = from; b <= to; b++) {
      for (const r of chain.records(b)) {
        const data = `0x${word(r.recipient.slice(2))}${word(r.amount.toString(16))}${word(r.fee.toString(16))}${r.reference.slice(2)}`
        const stamp = logTimestamps ? `,"blockTimestamp":"${hex(r.timestamp)}"` : ''
        parts.push(
          `{"address":"${contract}","topics":["${PERMITTED_TRANSFER_TOPIC}","${r.domainSeparator}","0x${word(r.token.slice(2))}","0x${word(r.payer.slice(2))}"],` +
            `"data":"${data}","blockNumber":"${hex(b)}","blockHash":"${r.blockHash}"${stamp},"transactionHash":"${r.txHash}",` +
            `"transactionIndex":"${hex(r.logIndex)}","logIndex":"${hex(r.logIndex)}","removed":false}`,
        )
      }
    }
    return `[${parts.join(',')}]`
  }

  /**
   * A block header; with `full` (only Ponder asks so), one legacy transaction per settlement (hash and index
   * as its log carries them) and the block's real logsBloom, else a zero bloom (the explorer never reads it).
   */
  function blockJson(n: number, full: boolean): string {
    const h = chain.header(n)
    const records = full ? chain.records(n) : []
    const transactions = records.map((r) => ({
      hash: r.txHash,
      transactionIndex: hex(r.logIndex),
      blockNumber: hex(n),
      blockHash: r.blockHash,
      from: r.payer,
      to: contract,
      type: '0x0',
      gas: '0x3d090',
      gasPrice: '0x3b9aca00',
      nonce: '0x0',
      value: '0x0',
      input: '0x',
    }))
    const bloom = full ? logsBloom(records.map((r) => ({ address: contract, topics: [PERMITTED_TRANSFER_TOPIC, r.domainSeparator, `0x${word(r.token.slice(2))}`, `0x${word(r.payer.slice(2))}`] }))) : ZERO_BLOOM
    return JSON.stringify({ number: hex(n), hash: h.blockHash, parentHash: h.parentHash, timestamp: hex(h.timestamp), logsBloom: bloom, receiptsRoot: ZERO_HASH, ...FIXED_HEADER, transactions })
  }

  function answer(req: Request): string {
    calls[req.method] = (calls[req.method] ?? 0) + 1
    const params = req.params ?? []
    switch (req.method) {
      case 'eth_chainId':
        return `"${hex(chainId)}"`
      case 'eth_blockNumber':
        return `"${hex(head())}"`
      case 'eth_getBlockByNumber':
      case 'eth_getBlockByHash': {
        const n = req.method === 'eth_getBlockByHash' ? blockOfHash(params[0]) : blockParam(params[0])
        return n < 0 || n > head() ? 'null' : blockJson(n, params[1] === true)
      }
      case 'eth_getLogs': {
        const filter = (params[0] ?? {}) as { address?: string | string[]; topics?: (string | string[] | null)[]; fromBlock?: string; toBlock?: string; blockHash?: string }
        if (filter.blockHash !== undefined) {
          const n = blockOfHash(filter.blockHash)
          if (n < 0 || n > head()) throw new RpcError(-32000, `unknown block ${filter.blockHash}`)
          filter.fromBlock = filter.toBlock = hex(n)
        }
        // An absent address or topic matches any (Ponder asks a block's logs by its hash alone); all logs here are the contract's.
        const addresses = [filter.address ?? contract].flat().map((a) => a.toLowerCase())
        const topic0 = [filter.topics?.[0] ?? PERMITTED_TRANSFER_TOPIC].flat().map((t) => t.toLowerCase())
        if (!addresses.includes(contract) || !topic0.includes(PERMITTED_TRANSFER_TOPIC)) return '[]'
        const from = blockParam(filter.fromBlock)
        const to = Math.min(blockParam(filter.toBlock), head())
        return from > to ? '[]' : logsJson(from, to)
      }
      case 'eth_call': {
        const call = (params[0] ?? {}) as { to?: string; data?: string }
        const token = tokens.get((call.to ?? '').toLowerCase() as Hex)
        if (!token) throw new RpcError(3, 'execution reverted')
        if (call.data?.startsWith(DECIMALS)) return `"0x${word(token.decimals.toString(16))}"`
        if (call.data?.startsWith(SYMBOL)) {
          const bytes = Buffer.from(token.symbol).toString('hex')
          return `"0x${word('20')}${word(bytes.length > 0 ? (bytes.length / 2).toString(16) : '0')}${bytes.padEnd(64, '0')}"`
        }
        throw new RpcError(3, 'execution reverted')
      }
      case 'bench_grow': {
        const perSecond = Number(params[0] ?? 0)
        baseHead = head()
        growth = perSecond > 0 ? { from: baseHead, at: performance.now(), perSecond } : undefined
        return JSON.stringify({ head: baseHead, at: performance.timeOrigin + performance.now() })
      }
      default:
        throw new RpcError(-32601, `method ${req.method} is not served by the bench node`)
    }
  }

  const respond = (req: Request) => {
    try {
      return `{"jsonrpc":"2.0","id":${JSON.stringify(req.id)},"result":${answer(req)}}`
    } catch (error) {
      const e = error instanceof RpcError ? error : new RpcError(-32603, String(error))
      if (e.code === -32005) calls[`${req.method} refused`] = (calls[`${req.method} refused`] ?? 0) + 1
      return JSON.stringify({ jsonrpc: '2.0', id: req.id, error: { code: e.code, message: e.message } })
    }
  }

  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      let body: Request | Request[]
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Request | Request[]
      } catch (error) {
        // Anything else on this port (a stray GET, a cut-off body) gets JSON-RPC's parse error; a throw here ended the node mid-run.
        res.writeHead(400, { 'content-type': 'application/json' })
        return res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: `parse error: ${String(error)}` } }))
      }
      const text = Array.isArray(body) ? `[${body.map(respond).join(',')}]` : respond(body)
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(text)
    })
  })
  server.keepAliveTimeout = 60_000
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    server,
    calls,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  }
}
