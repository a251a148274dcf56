/**
 * The structure of each client message's payload (PROCESSOR.md §2 and `ClientPayloads`): which fields
 * it must and may carry, and their forms. Semantic checks (is the token supported, does the nonce fit)
 * belong to the handlers.
 */
import type { ClientMessageType, ClientPayloads } from '../../../wire/index.js'
import { address, bytes32, hexBytes, integer, listOf, oneOf, optional, struct, text, uint256, type Read } from './fields.js'

export interface PayloadLimits {
  /** Domain separators a list may hold. */
  maxSeparators: number
}

export const MAX_ID_FIELD_LENGTH = 128
/** Explorer cursors are a few dozen characters; this only bounds what is forwarded. */
const MAX_CURSOR_LENGTH = 256
export const MAX_HISTORY_LIMIT = 100

const id = text(MAX_ID_FIELD_LENGTH)
const permitParams = struct({ owner: address, spender: address, value: uint256, nonce: uint256, deadline: uint256 })
const signature = struct({ v: integer(0, 255), r: bytes32, s: bytes32 })

export type PayloadReaders = { [T in ClientMessageType]: Read<ClientPayloads[T]> }

export function payloadReaders({ maxSeparators }: PayloadLimits): PayloadReaders {
  const separators = listOf(bytes32, 1, maxSeparators)
  const subscribe = struct({ requestId: id, domainSeparators: separators })
  return {
    GET_NONCE: struct({ requestId: id, domainSeparator: bytes32 }),
    GET_FEES: struct({
      requestId: id,
      domainSeparator: bytes32,
      amount: uint256,
      acquirerId: hexBytes(16),
      amountIs: optional(oneOf(['TOTAL', 'PRINCIPAL'] as const)),
    }),
    GET_BALANCE: struct({ requestId: id, domainSeparators: separators }),
    GET_HISTORY: struct({
      requestId: id,
      domainSeparators: separators,
      cursor: optional(text(MAX_CURSOR_LENGTH)),
      limit: optional(integer(1, MAX_HISTORY_LIMIT)),
    }),
    SUBMIT_PAYMENT: struct({
      requestId: id,
      transferRequest: struct({
        payWithPermitParams: struct({ token: address, beneficiary: address, ref: bytes32, permitParams }),
        payWithPermitSig: signature,
        permitSig: signature,
        payloadId: id,
      }),
    }),
    SUBMIT_ACQUIRING: struct({
      requestId: id,
      buyAcquiringPackRequest: struct({
        buyAcquiringPackParams: struct({ token: address, feeValue: uint256, acquiring: address, permitParams }),
        buyAcquiringPackSig: signature,
        permitSig: signature,
        payloadId: id,
      }),
    }),
    SUBSCRIBE_BALANCE: subscribe,
    SUBSCRIBE_TRANSFERS: subscribe,
    // An empty list leaves every separator of the channel.
    UNSUBSCRIBE: struct({ requestId: id, channel: oneOf(['BALANCE', 'TRANSFERS'] as const), domainSeparators: listOf(bytes32, 0, maxSeparators) }),
    GET_SUBMISSION_STATUS: struct({ requestId: id, payloadId: id }),
  }
}
