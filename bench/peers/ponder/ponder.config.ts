/**
 * Ponder as the bench peer: the synthetic chain of bench/data from the fake JSON-RPC node (bench/rpc),
 * configured by bench/sections/peers.ts through the environment. Default database: PGlite.
 */
import { createConfig } from 'ponder'
import { SettlementAbi } from './abis/settlement'

const required = (name: string) => {
  const value = process.env[name]
  if (!value) throw new Error(`${name} is not set (bench/sections/peers.ts sets it)`)
  return value
}

export default createConfig({
  database: { kind: 'pglite', directory: required('PEER_PGLITE_DIR') },
  chains: {
    bench: {
      id: Number(required('PEER_CHAIN_ID')),
      rpc: required('PEER_RPC_URL'),
      pollingInterval: Number(process.env.PEER_POLLING_MS ?? 1000),
      disableCache: true,
    },
  },
  contracts: {
    Settlement: {
      chain: 'bench',
      abi: SettlementAbi,
      address: required('PEER_CONTRACT') as `0x${string}`,
      startBlock: Number(required('PEER_START_BLOCK')),
    },
  },
})
