/**
 * What the store throws: a settlement it cannot store (a malformed field), or a store that does not
 * hold what its own keys say it does (a run or an id missing: a damaged data directory). Neither is
 * mended by a retry, so neither is retryable: the indexer stops on it rather than reading again.
 */
import { BaseError, type BaseErrorOptions } from '../../errors/index.js'

export class StoreError extends BaseError {
  override name = 'StoreError'

  constructor(shortMessage: string, options: BaseErrorOptions = {}) {
    super(shortMessage, { ...options, retryable: false })
  }
}
