/**
 * The deployment file: which contract and tokens the other pieces (explorer, traffic, admin, tests) work
 * against. `devnet` writes every field; `deploy` on a real network writes no keys (`relayerKey` absent,
 * empty `payerKeys`), because only the well-known local keys may ever be written to disk.
 */
import type { Hex } from 'viem'

export interface DeployedToken {
  address: Hex
  symbol: string
  name: string
  decimals: number
}

export interface DeployedAcquirer {
  /** bytes16: 0x + 32 hex. */
  id: Hex
  wallet: Hex
  /** Basis points. */
  feePercent: number
}

export interface Deployment {
  chainId: number
  rpcUrl: string
  settlementContract: Hex
  /** The block the settlement contract was deployed in: indexing starts here. */
  startBlock: number
  feeRecipient: Hex
  /** Local chains only (a well-known key); elsewhere the relayer key comes from RELAYER_PRIVATE_KEY. */
  relayerKey?: Hex
  tokens: DeployedToken[]
  payerKeys: Hex[]
  recipients: Hex[]
  acquirers: DeployedAcquirer[]
}
