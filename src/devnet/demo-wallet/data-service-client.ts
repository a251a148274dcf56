/**
 * What the demo wallet and the demo store read from the processor's data service (PROCESSOR.md §1): the
 * supported tokens (`GET /tokens`) and the public configuration (`GET /config`).
 */
import type { Hex } from 'viem'
import type { DirectoryToken } from '../../chain/index.js'
import { BaseError } from '../../errors/index.js'

/** A token as `/tokens` and `/config` list it: the directory's fields. */
export type ListedToken = DirectoryToken

export interface ProcessorConfig {
  chainId: number
  settlementContract: Hex
  walletGatewayUrl: string
  explorerUrl: string
  checkoutWidgetUrl: string
  /** In each token's smallest units: what a payer adds to every payment. */
  baseFeeAmount: string
  supportedTokens: ListedToken[]
}

export const fetchTokens = async (dataServiceUrl: string) => (await getJson<{ tokens: ListedToken[] }>(dataServiceUrl, '/tokens')).tokens

export const fetchConfig = (dataServiceUrl: string) => getJson<ProcessorConfig>(dataServiceUrl, '/config')

async function getJson<T>(dataServiceUrl: string, path: string): Promise<T> {
  const url = `${dataServiceUrl.replace(/\/+$/, '')}${path}`
  const response = await fetch(url).catch((error: Error) => {
    throw new BaseError(`the data service at ${url} does not answer (${(error.cause as Error | undefined)?.message ?? error.message})`, { cause: error, retryable: true })
  })
  if (!response.ok) throw new BaseError(`the data service answered ${response.status} to ${url}`, { details: { status: response.status }, retryable: response.status >= 500 })
  return (await response.json()) as T
}
