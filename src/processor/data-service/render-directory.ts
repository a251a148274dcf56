/**
 * The directory as the data service serves it: `/config` and `/tokens` bodies rendered once per change
 * of the chain's values (not per request), each with a strong ETag that is a hash of its bytes.
 * Amounts are decimal strings of integers, like every amount this project publishes.
 */
import { createHash } from 'node:crypto'
import type { Directory, DirectoryToken } from '../../chain/index.js'
import type { PublicUrls } from '../../config/index.js'

export interface RenderedBody {
  body: string
  /** Quoted, as it goes into the `ETag` header. */
  etag: string
}

export interface RenderedDirectory {
  config: RenderedBody
  tokens: RenderedBody
}

export function renderDirectory(directory: Directory, urls: PublicUrls): RenderedDirectory {
  const tokens = directory.tokens.map(publicToken)
  return {
    config: rendered({
      settlementContract: directory.settlementContract,
      chainId: directory.chainId,
      walletGatewayUrl: urls.walletGatewayUrl,
      feeRecipient: directory.feeRecipient,
      explorerUrl: urls.explorerUrl,
      checkoutWidgetUrl: urls.checkoutWidgetUrl,
      baseFeeAmount: directory.baseFeeAmount.toString(),
      maxAcquiringFee: directory.maxAcquiringFee.toString(),
      acquiringPrice: directory.acquiringPrice.toString(),
      supportedTokens: tokens,
    }),
    tokens: rendered({ tokens }),
  }
}

/** Fixed key order, so equal values always give equal bytes and the same ETag. */
function publicToken(token: DirectoryToken) {
  const { address, symbol, name, decimals, version, domainSeparator } = token
  return { address, symbol, name, decimals, version, domainSeparator }
}

function rendered(value: unknown): RenderedBody {
  const body = JSON.stringify(value)
  return { body, etag: `"${createHash('sha256').update(body).digest('base64url')}"` }
}
