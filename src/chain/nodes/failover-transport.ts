/**
 * A viem transport over one or several nodes of one chain (RPC_URL's entries, the first preferred):
 * a request goes to the node in use and, when that one fails, times out or answers with anything but a
 * deterministic refusal (a revert, a rejected transaction), to the next (node-health.ts picks). With
 * more than one node every node is asked its head now and then (while the client is used, never by a
 * timer of its own, so nothing is left running), to see a lagging node and one that came back.
 *
 * viem's `fallback` transport with `rank` was the first candidate: it orders nodes by latency and
 * success of a ping, so the preferred node comes back only when it is also the fastest, a node whose
 * head stopped moving still answers its ping and keeps its rank, and its ranking loop has no stop.
 *
 * A transaction (eth_sendRawTransaction) is sent to every node that is fine, not only the one in use:
 * the same signed bytes can be mined once at most, whoever hears them, and a node that has stopped
 * following the chain (the lag seen only after RPC_STALL_SECONDS) would otherwise swallow it until the
 * submitter's replacement timeout. The first node to accept answers the call.
 */
import { BaseError as ViemError, HttpRequestError, TimeoutError, createTransport, http, shouldThrow, type EIP1193RequestFn, type Transport } from 'viem'
import { BaseError } from '../../errors/index.js'
import { rpcFetch } from '../../platform/net/index.js'
import type { Logger } from '../../platform/observability/index.js'
import { createNodeHealth } from './node-health.js'

export interface FailoverTransportParams {
  urls: readonly string[]
  /** A node whose head has not moved this long while another's is higher lags. */
  stallMs: number
  /** When given, a node is used only once it has answered this chain id (until then as a last resort). */
  chainId?: number
  /** Per request and node; a node slower than this counts as failing. */
  timeoutMs?: number
  /** Retries of a request that every node failed. */
  retryCount?: number
  /** JSON-RPC batching per node: the most requests in one batch, or false for none. */
  batchSize?: number | false
  /** Told when another node takes over, and why. */
  log?: Logger
}

export interface NodeView {
  /** The URL's host alone: the rest of a URL may carry an API key. */
  host: string
  current: boolean
  failed: boolean
  lagging: boolean
  head?: number
  chain: 'unknown' | 'right' | 'wrong'
}

export interface NodeChainAnswer {
  host: string
  chainId?: number
  error?: unknown
}

export interface FailoverValue {
  /**
   * A JSON-RPC call whose answer comes back as the node's bytes (the explorer scans its logs without
   * parsing them into objects); a JSON-RPC error in the body is the caller's to read.
   */
  requestBytes(method: string, params: unknown[], timeoutMs: number): Promise<Buffer>
  /** Every node's eth_chainId, asked now. */
  checkChainIds(): Promise<NodeChainAnswer[]>
  nodes(): NodeView[]
}

export type FailoverTransport = Transport<'failover', FailoverValue>

/** A node answered with an HTTP error and no JSON-RPC body; a 5xx, 429 or 408 may pass on a retry. */
export class NodeHttpError extends BaseError {
  override name = 'NodeHttpError'
}

export function failoverTransport(params: FailoverTransportParams): FailoverTransport {
  const { urls, chainId, log } = params
  const timeoutMs = params.timeoutMs ?? 10_000
  const hosts = urls.map((url) => new URL(url).host)
  const batch = params.batchSize === false || params.batchSize === undefined ? false : { batchSize: params.batchSize, wait: 0 }
  const nodes = urls.map((url) => http(url, { batch, retryCount: 0, timeout: timeoutMs, fetchFn: rpcFetch })({ retryCount: 0 }).request as EIP1193RequestFn)
  const health = createNodeHealth({ count: urls.length, stallMs: params.stallMs, checkChain: chainId !== undefined })
  // Often enough to see a lag well within RPC_STALL_SECONDS; a node that hangs holds up only its own probe.
  const probeEveryMs = Math.min(1_000, Math.max(50, params.stallMs / 10))
  const probing = new Set<number>()
  let probedAt = 0
  let inUse = 0

  const noteCurrent = () => {
    const now = Date.now()
    const next = health.current(now)
    if (next === inUse) return
    const was = health.describe(now)[inUse]!
    const why = was.failed ? 'it fails' : was.lagging ? 'its head stopped moving' : was.chain === 'wrong' ? 'it serves another chain' : 'it is back'
    log?.warn('another RPC_URL node takes over', { from: `${inUse + 1} (${hosts[inUse]})`, to: `${next + 1} (${hosts[next]})`, because: why })
    inUse = next
  }
  const answered = (i: number, head?: bigint) => {
    health.answered(i, Date.now(), head)
    noteCurrent()
  }
  const failed = (i: number, error: unknown) => {
    if (!nodeFailure(error)) return answered(i)
    health.failed(i)
    noteCurrent()
  }

  const checked = (i: number, served: number) => {
    if (chainId === undefined) return
    health.checkedChain(i, served === chainId ? 'right' : 'wrong')
    if (served !== chainId) log?.error('an RPC_URL node serves another chain: it is never used', { node: `${i + 1} (${hosts[i]})`, serves: served, chainId })
  }
  const probe = async (i: number) => {
    if (health.chain(i) === 'wrong') return
    try {
      if (chainId !== undefined && health.chain(i) === 'unknown') checked(i, Number(await nodes[i]!({ method: 'eth_chainId' })))
      answered(i, BigInt((await nodes[i]!({ method: 'eth_blockNumber' })) as string))
    } catch (error) {
      failed(i, error)
    }
  }
  const probeSoon = () => {
    const now = Date.now()
    if (urls.length < 2 || now - probedAt < probeEveryMs) return
    probedAt = now
    for (let i = 0; i < urls.length; i++) {
      if (probing.has(i)) continue
      probing.add(i)
      void probe(i).finally(() => probing.delete(i))
    }
  }

  const ask = async (order: number[], args: { method: string; params?: unknown }, options: Parameters<EIP1193RequestFn>[1]) => {
    let nodeError: unknown
    let answerError: unknown
    for (const i of order) {
      try {
        const result = await nodes[i]!(args as never, options)
        // Heads are taken from the probes alone: asked of every node at once, they compare.
        answered(i)
        return result
      } catch (error) {
        // The caller gave up: no word on the node.
        if (options?.signal?.aborted) throw error
        failed(i, error)
        if (error instanceof Error && shouldThrow(error)) throw error
        if (nodeFailure(error)) nodeError ??= error
        else answerError ??= error
      }
    }
    // A node's own answer (a refusal of this request) says more than another's silence.
    throw answerError ?? nodeError ?? new BaseError('every node at RPC_URL serves another chain than CHAIN_ID')
  }

  const broadcast = async (args: { method: string; params?: unknown }, options: Parameters<EIP1193RequestFn>[1]) => {
    const targets = health.healthy(Date.now())
    if (targets.length < 2) return ask(health.order(Date.now()), args, options)
    const sends = targets.map((i) =>
      nodes[i]!(args as never, options).then(
        (result) => {
          answered(i)
          return result
        },
        (error: unknown) => {
          failed(i, error)
          throw error
        },
      ),
    )
    try {
      return await Promise.any(sends)
    } catch (error) {
      const errors = (error as AggregateError).errors
      // Every node that was fine failed to answer: the others are a last resort.
      if (errors.every(nodeFailure)) return ask(health.order(Date.now()).filter((i) => !targets.includes(i)), args, options).catch(() => Promise.reject(errors[0]))
      throw errors.find((e) => !nodeFailure(e))
    }
  }

  const request: EIP1193RequestFn = (async (args, options) => {
    probeSoon()
    if (args.method === 'eth_sendRawTransaction') return broadcast(args, options)
    return ask(health.order(Date.now()), args, options)
  }) as EIP1193RequestFn

  const value: FailoverValue = {
    async requestBytes(method, params, timeout) {
      probeSoon()
      const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method, params })
      let firstError: unknown
      for (const i of health.order(Date.now())) {
        try {
          const response = await rpcFetch(urls[i]!, { method: 'POST', headers: { 'content-type': 'application/json' }, body, signal: AbortSignal.timeout(timeout) })
          const bytes = Buffer.from(await response.arrayBuffer())
          if (!response.ok && bytes[0] !== 0x7b) throw new NodeHttpError(`${method}: HTTP ${response.status} ${bytes.toString('utf8', 0, 200)}`, {
              details: { node: hosts[i], status: response.status },
              retryable: response.status >= 500 || response.status === 429 || response.status === 408,
            })
          answered(i)
          return bytes
        } catch (error) {
          health.failed(i)
          noteCurrent()
          firstError ??= error
        }
      }
      throw firstError ?? new BaseError('every node at RPC_URL serves another chain than CHAIN_ID')
    },
    checkChainIds: () =>
      Promise.all(
        urls.map(async (_, i): Promise<NodeChainAnswer> => {
          try {
            const served = Number(await nodes[i]!({ method: 'eth_chainId' }))
            checked(i, served)
            answered(i)
            return { host: hosts[i]!, chainId: served }
          } catch (error) {
            failed(i, error)
            return { host: hosts[i]!, error }
          }
        }),
      ),
    nodes: () => health.describe(Date.now()).map((node, i) => ({ ...node, host: hosts[i]!, head: node.head === undefined ? undefined : Number(node.head) })),
  }

  return () => createTransport({ key: 'failover', name: 'Failover', type: 'failover', request, retryCount: params.retryCount ?? 2, timeout: timeoutMs }, value)
}

/** The node gave no JSON-RPC answer: unreachable, an HTTP error status, or too slow. */
function nodeFailure(error: unknown): boolean {
  if (error instanceof NodeHttpError) return true
  if (!(error instanceof ViemError)) return true
  return error.walk((e) => e instanceof HttpRequestError || e instanceof TimeoutError) !== null
}
