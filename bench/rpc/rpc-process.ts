/**
 * The fake JSON-RPC node as a bench child: `{ seed, settlements, logCap, logTimestamps }` as JSON in
 * argv[2]. Sends `{ type: 'ready', url, head, count }`; answers `calls` with the served call counts.
 */
import { BENCH_CHAIN_ID } from '../data/bench-store.js'
import { BENCH_CONTRACT, DEFAULT_SHAPE, SyntheticChain } from '../data/synthetic-chain.js'
import { serveParent } from '../lib/child.js'
import { startFakeRpc } from './fake-rpc-server.js'

const { seed, settlements, logCap, logTimestamps } = JSON.parse(process.argv[2] ?? '{}') as {
  seed: number
  settlements: number
  logCap?: number
  logTimestamps?: boolean
}
const chain = new SyntheticChain({ ...DEFAULT_SHAPE, seed })
const { head, count } = chain.headFor(settlements)
const rpc = await startFakeRpc({ chain, contract: BENCH_CONTRACT, chainId: BENCH_CHAIN_ID, head, logCap, logTimestamps })
serveParent(() => ({ calls: rpc.calls }))
process.once('SIGTERM', () => void rpc.close().then(() => process.exit(0)))
process.send?.({ type: 'ready', url: rpc.url, head, count })
