/**
 * The processor's configuration as the chain states it: the settlement contract's fee parameters and
 * the tokens it accepts (every `AcquiringAllowedTokenAdded` since deployment that is still allowed),
 * each with its EIP-712 domain. A token's domain separator is computed from its `eip712Domain()` and
 * must equal its `DOMAIN_SEPARATOR()`: wallets sign permits against it, so a disagreement is refused.
 */
import { domainSeparator, erc20Abi, parseAbiItem, type Hex, type PublicClient, type TypedDataDomain } from 'viem'
import { settlementAbi } from '../abi/settlement-abi.js'
import { stablecoinAbi } from '../abi/stablecoin-abi.js'
import { BaseError } from '../../errors/index.js'

export interface DirectoryToken {
  address: Hex
  symbol: string
  name: string
  decimals: number
  /** The token's EIP-712 domain version (its permit domain). */
  version: string
  domainSeparator: Hex
}

export interface Directory {
  chainId: number
  settlementContract: Hex
  feeRecipient: Hex
  baseFeeAmount: bigint
  maxAcquiringFee: bigint
  acquiringPrice: bigint
  tokens: DirectoryToken[]
  /** The block these values were read at. */
  blockNumber: bigint
}

export interface ReadDirectoryParams {
  publicClient: PublicClient
  settlementContract: Hex
  /** The contract's deployment block: allowed tokens are found from its events since then. */
  fromBlock: bigint
}

const tokenAllowed = parseAbiItem('event AcquiringAllowedTokenAdded(address indexed token)')

/** Blocks per `eth_getLogs` request: public nodes refuse much wider ranges. */
const LOG_RANGE = 10_000n

export async function readDirectory({ publicClient, settlementContract, fromBlock }: ReadDirectoryParams): Promise<Directory> {
  const blockNumber = await publicClient.getBlockNumber({ cacheTime: 0 })
  const read = <name extends 'feeRecipient' | 'baseFeeAmount' | 'maxAcquiringFee' | 'acquiringPrice'>(functionName: name) =>
    publicClient.readContract({ address: settlementContract, abi: settlementAbi, functionName, blockNumber })
  const [chainId, feeRecipient, baseFeeAmount, maxAcquiringFee, acquiringPrice, added] = await Promise.all([
    publicClient.getChainId(),
    read('feeRecipient'),
    read('baseFeeAmount'),
    read('maxAcquiringFee'),
    read('acquiringPrice'),
    tokensAddedBetween(publicClient, settlementContract, fromBlock, blockNumber),
  ])
  const candidates = [...new Set(added.map((token) => token.toLowerCase() as Hex))]
  const allowed = await Promise.all(
    candidates.map((token) =>
      publicClient.readContract({ address: settlementContract, abi: settlementAbi, functionName: 'acquiringAllowedTokens', args: [token], blockNumber }),
    ),
  )
  const tokens = await Promise.all(candidates.filter((_, i) => allowed[i]).map((token) => readToken(publicClient, token)))
  return {
    chainId,
    settlementContract: settlementContract.toLowerCase() as Hex,
    feeRecipient: feeRecipient.toLowerCase() as Hex,
    baseFeeAmount,
    maxAcquiringFee,
    acquiringPrice,
    tokens,
    blockNumber,
  }
}

async function tokensAddedBetween(publicClient: PublicClient, address: Hex, fromBlock: bigint, toBlock: bigint): Promise<Hex[]> {
  const tokens: Hex[] = []
  for (let from = fromBlock; from <= toBlock; from += LOG_RANGE) {
    const to = from + LOG_RANGE - 1n < toBlock ? from + LOG_RANGE - 1n : toBlock
    const logs = await publicClient.getLogs({ address, event: tokenAllowed, fromBlock: from, toBlock: to })
    tokens.push(...logs.map((log) => log.args.token!))
  }
  return tokens
}

async function readToken(publicClient: PublicClient, address: Hex): Promise<DirectoryToken> {
  const [symbol, decimals, [fields, name, version, chainId, verifyingContract, salt], declared] = await Promise.all([
    publicClient.readContract({ address, abi: erc20Abi, functionName: 'symbol' }),
    publicClient.readContract({ address, abi: erc20Abi, functionName: 'decimals' }),
    publicClient.readContract({ address, abi: stablecoinAbi, functionName: 'eip712Domain' }),
    publicClient.readContract({ address, abi: stablecoinAbi, functionName: 'DOMAIN_SEPARATOR' }),
  ])
  // EIP-5267: the `fields` bits say which members the domain has (name, version, chainId, contract, salt).
  const has = (bit: number) => (Number(fields) & bit) !== 0
  const domain: TypedDataDomain = {
    ...(has(1) && { name }),
    ...(has(2) && { version }),
    ...(has(4) && { chainId }),
    ...(has(8) && { verifyingContract }),
    ...(has(16) && { salt }),
  }
  const computed = domainSeparator({ domain })
  if (computed.toLowerCase() !== declared.toLowerCase()) {
    throw new BaseError(`token ${address}: DOMAIN_SEPARATOR() ${declared} differs from its eip712Domain() (${computed})`)
  }
  return { address, symbol, name, decimals, version, domainSeparator: computed.toLowerCase() as Hex }
}
