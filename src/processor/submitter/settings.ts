/** What the broadcast submitter needs to run; built from the environment in src/config/submitter-options.ts. */
import type { Hex } from 'viem'

export interface SubmitterSettings {
  chainId: number
  rpcUrl: string
  settlementContract: Hex
  relayerKey: Hex
  /** Wei; undefined = the cost of 10 payments at current gas prices. */
  minBalance?: bigint
  /** A transaction unmined this long is replaced with a higher fee. */
  stuckTimeoutMs: number
  /** Between steps while there is work in flight. */
  pollIntervalMs: number
  /** Between steps while idle (a NOTIFY wakes the submitter sooner). */
  idlePollMs: number
  /** How often a standby tries to take over the relayer's lock. */
  standbyPollMs: number
  balanceCheckMs: number
  /** Submissions validated and sent per step. */
  batchSize: number
  /** How long a payment whose permit nonce is ahead waits before it is checked again. */
  deferMs: number
  deadlineMarginSeconds: number
}
