/**
 * Which of a chain's nodes (RPC_URL's entries, the first preferred) a request goes to, from what they
 * answered: a node that failed (no JSON-RPC answer, a timeout) is left until a probe hears from it again;
 * a node whose head has not moved for `stallMs` while another's is higher lags and is left too. The node
 * in use stays in use while it is fine; a node before it in RPC_URL takes over again once it answers, does
 * not lag and has caught up with it (never a step back in height for the reader). Time is handed in, so
 * that the rules are tested without waiting.
 */

export type ChainCheck = 'unknown' | 'right' | 'wrong'

interface NodeState {
  head?: bigint
  /** When `head` last changed. */
  movedAt: number
  /** Since when another node has been seen higher, if it is. */
  behindSince?: number
  failed: boolean
  chain: ChainCheck
}

export interface NodeHealth {
  /** The node requests go to first. */
  current(now: number): number
  /**
   * Every node worth asking, best first: the current one, the others that are fine in RPC_URL's order,
   * then those that failed or lag (they may have recovered since); never one that serves another chain,
   * nor one whose chain is unknown once another's is known to be right.
   */
  order(now: number): number[]
  /** The nodes that are fine, in RPC_URL's order (a transaction is sent to each). */
  healthy(now: number): number[]
  answered(node: number, now: number, head?: bigint): void
  failed(node: number): void
  checkedChain(node: number, check: ChainCheck): void
  chain(node: number): ChainCheck
  /** A short view of each node, for /health and logs. */
  describe(now: number): { current: boolean; failed: boolean; lagging: boolean; head?: bigint; chain: ChainCheck }[]
}

/** `checkChain`: each node's chain id is to be checked before it counts as fine (before any is checked, all are asked). */
export function createNodeHealth({ count, stallMs, checkChain }: { count: number; stallMs: number; checkChain: boolean }): NodeHealth {
  const nodes: NodeState[] = Array.from({ length: count }, () => ({ movedAt: 0, failed: false, chain: checkChain ? 'unknown' : 'right' }))
  let current = 0

  const lagging = (i: number, now: number) => {
    const node = nodes[i]!
    return node.behindSince !== undefined && now - node.behindSince >= stallMs && now - node.movedAt >= stallMs
  }
  const compareHeads = (now: number) => {
    for (const [i, node] of nodes.entries()) {
      const behind = node.head !== undefined && nodes.some((other, j) => j !== i && !other.failed && other.head !== undefined && other.head > node.head!)
      node.behindSince = behind ? (node.behindSince ?? now) : undefined
    }
  }
  const fine = (i: number, now: number) => nodes[i]!.chain === 'right' && !nodes[i]!.failed && !lagging(i, now)
  const caughtUp = (i: number, with_: number) => (nodes[i]!.head ?? 0n) >= (nodes[with_]!.head ?? 0n)

  const pick = (now: number) => {
    if (!fine(current, now)) {
      const next = nodes.findIndex((_, i) => fine(i, now))
      if (next >= 0) current = next
    }
    for (let i = 0; i < current; i++) {
      if (fine(i, now) && caughtUp(i, current)) {
        current = i
        break
      }
    }
    return current
  }

  return {
    current: pick,
    order(now) {
      const first = pick(now)
      // A node of unknown chain is asked only while no node is known to be right (before the first check).
      const askable = (i: number) => nodes[i]!.chain === 'right' || (nodes[i]!.chain === 'unknown' && !nodes.some((node) => node.chain === 'right'))
      const indexes = nodes.map((_, i) => i).filter((i) => i !== first && askable(i))
      return [...(askable(first) ? [first] : []), ...indexes.filter((i) => fine(i, now)), ...indexes.filter((i) => !fine(i, now))]
    },
    healthy: (now) => nodes.map((_, i) => i).filter((i) => fine(i, now)),
    answered(i, now, head) {
      const node = nodes[i]!
      node.failed = false
      if (head !== undefined && head !== node.head) {
        node.head = head
        node.movedAt = now
        compareHeads(now)
      }
    },
    failed(i) {
      nodes[i]!.failed = true
    },
    checkedChain(i, check) {
      nodes[i]!.chain = check
    },
    chain: (i) => nodes[i]!.chain,
    describe(now) {
      const first = pick(now)
      return nodes.map((node, i) => ({ current: i === first, failed: node.failed, lagging: lagging(i, now), head: node.head, chain: node.chain }))
    },
  }
}
