/**
 * The gateway protocol's message catalogue (PROCESSOR.md §2): what each client message carries, what the
 * gateway answers and pushes, and the error codes with their categories. One definition for the gateway
 * and the SDK's wallet client.
 */
import type { Hex } from 'viem'
import type { BuyAcquiringPackRequest, SubmissionKind, TransferRequest } from './payment-request.js'

export type SubmissionStatus = 'ENQUEUING' | 'PENDING' | 'BROADCASTING' | 'SUCCESS' | 'FAILURE'
export type Channel = 'BALANCE' | 'TRANSFERS'

/** Client → gateway payloads, by envelope `type`. */
export interface ClientPayloads {
  GET_NONCE: { requestId: string; domainSeparator: Hex }
  /**
   * `amount` is the total with fees (the answer breaks it down). Extension (decided): `amountIs:
   * "PRINCIPAL"` treats `amount` as what the recipient gets and returns the fees on top, as a wallet
   * paying a charge needs.
   */
  GET_FEES: { requestId: string; domainSeparator: Hex; amount: string; acquirerId: Hex; amountIs?: 'TOTAL' | 'PRINCIPAL' }
  GET_BALANCE: { requestId: string; domainSeparators: Hex[] }
  GET_HISTORY: { requestId: string; domainSeparators: Hex[]; cursor?: string; limit?: number }
  SUBMIT_PAYMENT: { requestId: string; transferRequest: TransferRequest }
  SUBMIT_ACQUIRING: { requestId: string; buyAcquiringPackRequest: BuyAcquiringPackRequest }
  SUBSCRIBE_BALANCE: { requestId: string; domainSeparators: Hex[] }
  SUBSCRIBE_TRANSFERS: { requestId: string; domainSeparators: Hex[] }
  UNSUBSCRIBE: { requestId: string; channel: Channel; domainSeparators: Hex[] }
  /** Extension (decided): the current status of one of the caller's submissions, e.g. after a reconnect. */
  GET_SUBMISSION_STATUS: { requestId: string; payloadId: string }
}

export type ClientMessageType = keyof ClientPayloads

export interface Transfer {
  domainSeparator: Hex
  txHash: Hex
  blockNumber: number
  logIndex: number
  timestamp: number
  from: Hex
  to: Hex
  value: string
  fee: string
  orderReference: Hex
  acquirerId: Hex
  direction: 'IN' | 'OUT'
}

export interface SubmissionStatusPush {
  type: 'SUBMISSION_STATUS'
  payloadId: string
  submissionType: SubmissionKind
  status: SubmissionStatus
  txHash?: Hex
  failureReason?: string
  failureCategory?: FailureCategory
  /**
   * Extension (decided): present on a `FAILURE` with `failureCategory: "DROPPED"` while the submitter
   * still watches for its receipt, up to and including this block. Such a failure is not final: it can
   * still become SUCCESS (or FAILURE REVERTED). When the watch ends without a receipt, the same failure
   * is announced again without this field, and only then is it final.
   */
  watchedUntilBlock?: number
}

/** Whether a status is the submission's last: SUCCESS, or a FAILURE the submitter no longer watches. */
export const isFinalStatus = (push: Pick<SubmissionStatusPush, 'status' | 'watchedUntilBlock'>): boolean =>
  push.status === 'SUCCESS' || (push.status === 'FAILURE' && push.watchedUntilBlock === undefined)

/** Why a submission failed (decided). */
export type FailureCategory =
  | 'INVALID_SIGNATURE'
  | 'EXPIRED'
  | 'NONCE_MISMATCH'
  | 'ALREADY_USED'
  | 'INSUFFICIENT_BALANCE'
  | 'SIMULATION_FAILED'
  | 'REVERTED'
  /** The relayer's nonce was consumed by a transaction the submitter did not record. */
  | 'DROPPED'
  /**
   * Extension: a submission that could not run yet (future: permit nonce ahead, or more than the owner's
   * balance covers) was pushed out of the queue by newer ones past GATEWAY_MAX_FUTURE_TOTAL; never sent.
   */
  | 'EVICTED'

/** Gateway → client messages. */
export type ServerMessage =
  | { type: 'NONCE_RESULT'; requestId: string; nonce: string }
  | { type: 'FEES_RESULT'; requestId: string; brokenDownAmount: { fees: string; remaining: string }; total: string }
  | { type: 'BALANCE_RESULT'; requestId: string; balances: { domainSeparator: Hex; balance: string }[] }
  | { type: 'HISTORY_RESULT'; requestId: string; transfers: Transfer[]; nextCursor: string | null }
  | { type: 'SUBMIT_PAYMENT_ACK'; requestId: string; payloadId: string; status: SubmissionStatus }
  | { type: 'SUBMIT_ACQUIRING_ACK'; requestId: string; payloadId: string; status: SubmissionStatus }
  | { type: 'SUBSCRIBE_BALANCE_ACK' | 'SUBSCRIBE_TRANSFERS_ACK'; requestId: string; subscribedSeparators: Hex[] }
  | { type: 'UNSUBSCRIBE_ACK'; requestId: string; unsubscribedSeparators: Hex[] }
  | { type: 'BALANCE_UPDATE'; domainSeparator: Hex; balance: string }
  | { type: 'TRANSFER_NOTIFICATION'; transfer: Transfer }
  | SubmissionStatusPush
  /** The answer to GET_SUBMISSION_STATUS: the push's fields with the request's id. */
  | (SubmissionStatusPush & { requestId: string })
  | { type: 'ERROR'; requestId?: string; errorCode: ErrorCode; errorCategory: ErrorCategory; message: string }

export type ErrorCategory = 'STRUCTURAL_ERROR' | 'AUTHENTICATION_ERROR' | 'SEMANTIC_ERROR' | 'NOT_FOUND' | 'RATE_LIMIT' | 'INTERNAL_ERROR'

export const errorCategories = {
  MISSING_FIELD: 'STRUCTURAL_ERROR',
  INVALID_FORMAT: 'STRUCTURAL_ERROR',
  INVALID_SIGNATURE: 'AUTHENTICATION_ERROR',
  ADDRESS_MISMATCH: 'AUTHENTICATION_ERROR',
  EXPIRED_DEADLINE: 'AUTHENTICATION_ERROR',
  UNSUPPORTED_TOKEN: 'SEMANTIC_ERROR',
  NONCE_MISMATCH: 'SEMANTIC_ERROR',
  ALREADY_SUBMITTED: 'SEMANTIC_ERROR',
  RELAYER_UNAVAILABLE: 'SEMANTIC_ERROR',
  UNKNOWN_PAYLOAD_ID: 'NOT_FOUND',
  RATE_LIMIT_EXCEEDED: 'RATE_LIMIT',
  INTERNAL_ERROR: 'INTERNAL_ERROR',
} as const satisfies Record<string, ErrorCategory>

export type ErrorCode = keyof typeof errorCategories

/** WebSocket close codes (decided, besides 4001 from the specification). */
export const closeCodes = {
  superseded: 4001,
  noFirstMessage: 4002,
  idle: 4003,
  abuse: 4008,
  shutdown: 1001,
} as const
