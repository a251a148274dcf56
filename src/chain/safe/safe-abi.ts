/**
 * The parts of a Safe (Safe{Wallet} 1.3/1.4 multisig) our admin tooling calls: its owners, threshold and
 * nonce, and `execTransaction` with the collected owner signatures.
 */
import { parseAbi, toEventSelector } from 'viem'

export const safeAbi = parseAbi([
  'function VERSION() view returns (string)',
  'function nonce() view returns (uint256)',
  'function getThreshold() view returns (uint256)',
  'function getOwners() view returns (address[])',
  'function execTransaction(address to, uint256 value, bytes data, uint8 operation, uint256 safeTxGas, uint256 baseGas, uint256 gasPrice, address gasToken, address refundReceiver, bytes signatures) payable returns (bool success)',
])

/** Topic of `ExecutionSuccess(bytes32,uint256)`: 1.3 and 1.4 index its hash differently, the topic is the same. */
export const safeExecutionSuccessTopic = toEventSelector('ExecutionSuccess(bytes32,uint256)')
