/**
 * Turns an empty local chain into a ready-to-use devnet: two test stablecoins (USDC, EURC), the settlement
 * contract with the local defaults, funded payers and registered acquirers. Everything is derived from
 * fixed keys, so the same chain state comes back after every restart.
 */
import { createTestClient, encodeFunctionData, http, parseEther, type Hex, type PublicClient } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { stablecoinAbi } from '../../chain/index.js'
import { createChainClient } from '../../chain/index.js'
import { deployContracts } from '../deploy/index.js'
import { DEFAULT_BASE_FEE_AMOUNT } from '../deploy/index.js'
import { buyAcquiringPack } from '../../chain/index.js'
import { createTxSender, type TxSender } from '../../chain/index.js'
import { deriveLocalKey, localDeployerKey, localRelayerKey } from '../../config/index.js'
import type { DeployedAcquirer, Deployment } from '../../wire/index.js'
import { BaseError } from '../../errors/index.js'

export interface DeployDevnetParams {
  rpcUrl: string
  /** Funded payer accounts; default 20. */
  payers?: number
  /** Recipient addresses for traffic; default 5. */
  recipients?: number
}

const PAYER_TOKENS = 1_000_000_000_000n // 1,000,000.00 of a 6-decimal token, per payer and token
const ACQUIRING_PRICE = 100_000_000n // 100.00
const MAX_ACQUIRING_FEE = 500 // 5.00 %
/** Fees of the registered acquirers, in basis points. */
const ACQUIRER_FEES = [100, 250]

export async function deployDevnet(params: DeployDevnetParams): Promise<Deployment> {
  const publicClient = createChainClient({ rpcUrl: params.rpcUrl, pollingIntervalMs: 50 })
  const chainId = await publicClient.getChainId()
  const [deployer, relayer] = await Promise.all(
    [localDeployerKey, localRelayerKey].map((privateKey) => createTxSender({ publicClient, privateKey, chainId })),
  ) as [TxSender, TxSender]

  const { settlementContract, startBlock, tokens } = await deployContracts({
    publicClient,
    sender: deployer,
    testTokens: [
      { name: 'USD Coin', symbol: 'USDC' },
      { name: 'Euro Coin', symbol: 'EURC' },
    ],
    settlement: {
      baseFeeAmount: DEFAULT_BASE_FEE_AMOUNT,
      maxAcquiringFee: MAX_ACQUIRING_FEE,
      acquiringPrice: ACQUIRING_PRICE,
      feeRecipient: deployer.address,
      allowedTokens: [],
    },
  })

  const payerKeys = range(params.payers ?? 20).map((i) => deriveLocalKey('payer', i))
  const acquirerKeys = ACQUIRER_FEES.map((_, i) => deriveLocalKey('acquirer', i))
  const tokenAddresses = tokens.map((token) => token.address)
  await fund({ publicClient, rpcUrl: params.rpcUrl, deployer, tokens: tokenAddresses, keys: [...payerKeys, ...acquirerKeys] })

  const acquirers: DeployedAcquirer[] = []
  for (const [i, privateKey] of acquirerKeys.entries()) {
    const account = privateKeyToAccount(privateKey)
    const pack = await buyAcquiringPack({
      publicClient,
      sender: relayer,
      settlementContract,
      payer: account,
      token: tokenAddresses[0] as Hex,
      acquiring: account.address,
      feePercent: ACQUIRER_FEES[i] as number,
    })
    acquirers.push({ id: pack.acquirerId, wallet: pack.wallet, feePercent: pack.feePercent })
  }

  return {
    chainId,
    rpcUrl: params.rpcUrl,
    settlementContract,
    startBlock,
    feeRecipient: deployer.address,
    relayerKey: localRelayerKey,
    tokens,
    payerKeys,
    recipients: range(params.recipients ?? 5).map(
      (i) => privateKeyToAccount(deriveLocalKey('recipient', i)).address.toLowerCase() as Hex,
    ),
    acquirers,
  }
}

/** Mints every token to every key's address and gives each some ETH, all in flight at once. */
async function fund(params: { publicClient: PublicClient; rpcUrl: string; deployer: TxSender; tokens: Hex[]; keys: Hex[] }) {
  const { publicClient, deployer, tokens, keys } = params
  const testClient = createTestClient({ mode: 'anvil', transport: http(params.rpcUrl) })
  const addresses = keys.map((key) => privateKeyToAccount(key).address)
  await Promise.all(addresses.map((address) => testClient.setBalance({ address, value: parseEther('100') })))
  const hashes = await Promise.all(
    tokens.flatMap((token) =>
      addresses.map((address) =>
        deployer.send({
          to: token,
          data: encodeFunctionData({ abi: stablecoinAbi, functionName: 'mint', args: [address, PAYER_TOKENS] }),
          gas: 100_000n,
        }),
      ),
    ),
  )
  const receipts = await Promise.all(hashes.map((hash) => publicClient.waitForTransactionReceipt({ hash })))
  const failed = receipts.find((receipt) => receipt.status !== 'success')
  if (failed) throw new BaseError(`funding failed in ${failed.transactionHash}`, { details: { txHash: failed.transactionHash } })
}

function range(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i)
}
