/**
 * A wallet's client for the gateway protocol (PROCESSOR.md §2): one WebSocket, every request signed in
 * an envelope by the wallet's account, answers matched by `requestId`, pushes dispatched to handlers.
 * `pay(session)` signs the permit and the binding signature, submits them, and follows
 * `SUBMISSION_STATUS` to its final status — across reconnects, by asking for the status again. A
 * DROPPED failure the submitter still watches (`watchedUntilBlock`) is not final: the chain may still
 * show the payment mined, so `pay` waits through it to SUCCESS or to the failure announced final.
 * Browser-safe.
 */
import type { Hex, LocalAccount } from 'viem'
import { transferRequestOf, type BuyAcquiringPackRequest, type TransferRequest } from '../../wire/index.js'
import { signPayment } from '../../wire/index.js'
import { signEnvelope } from '../../wire/index.js'
import { closeCodes, isFinalStatus, type Channel, type ClientMessageType, type ClientPayloads, type ServerMessage, type SubmissionStatusPush, type Transfer } from '../../wire/index.js'
import { DEFAULT_RECONNECT, reconnectDelay } from '../live/backoff.js'
import { WS_OPEN, resolveWebSocket, type WebSocketLike } from '../live/resolve-web-socket.js'
import type { ReconnectOptions } from '../types.js'
import { GatewayError } from './gateway-error.js'
import type { PaymentSession, SessionToken } from './payment-session.js'
import { BaseError } from '../../wire/index.js'

export interface WalletClientOptions {
  /** `ws://…/ws` of the gateway. */
  url: string
  account: LocalAccount
  chainId: number
  /** Milliseconds a request waits for its answer (default 15000). */
  timeout?: number
  reconnect?: ReconnectOptions
  onError?(error: Error): void
}

type Answer<type extends ServerMessage['type']> = Extract<ServerMessage, { type: type }>
type Pending = { resolve(message: ServerMessage): void; reject(error: Error): void; timer: ReturnType<typeof setTimeout> }
/** SUCCESS, or a FAILURE the submitter no longer watches (never one with `watchedUntilBlock`). */
export type FinalStatus = SubmissionStatusPush & { status: 'SUCCESS' | 'FAILURE' }

const isFinal = (push: SubmissionStatusPush): push is FinalStatus => isFinalStatus(push)

export class WalletClient {
  readonly address: Hex
  #socket: WebSocketLike | undefined
  #wanted = false
  #attempt = 0
  #nextId = 0
  readonly #pending = new Map<string, Pending>()
  readonly #statusHandlers = new Set<(push: SubmissionStatusPush) => void>()
  readonly #pushHandlers = new Set<(push: ServerMessage) => void>()
  /** Payloads being followed to a final status; asked for again after a reconnect. */
  readonly #followed = new Map<string, (push: FinalStatus) => void>()
  readonly #subscriptions = { BALANCE: new Set<Hex>(), TRANSFERS: new Set<Hex>() }

  constructor(private readonly options: WalletClientOptions) {
    this.address = options.account.address.toLowerCase() as Hex
  }

  /** Opens the connection; resolves once it is open. Later drops reconnect with backoff. */
  async connect(): Promise<void> {
    this.#wanted = true
    await this.#open()
  }

  disconnect(): void {
    this.#wanted = false
    this.#socket?.close(1000, 'client disconnect')
    this.#failAll(new GatewayError('CONNECTION_CLOSED', 'CONNECTION', 'disconnected'))
  }

  async getNonce(domainSeparator: Hex): Promise<bigint> {
    return BigInt((await this.#request('GET_NONCE', { domainSeparator }, 'NONCE_RESULT')).nonce)
  }

  /** Fees of a payment: of a total (`amountIs: "TOTAL"`, the default) or on top of a principal. */
  async getFees(domainSeparator: Hex, amount: bigint, acquirerId: Hex, amountIs: 'TOTAL' | 'PRINCIPAL' = 'TOTAL') {
    const answer = await this.#request('GET_FEES', { domainSeparator, amount: amount.toString(), acquirerId, amountIs }, 'FEES_RESULT')
    return { fees: BigInt(answer.brokenDownAmount.fees), remaining: BigInt(answer.brokenDownAmount.remaining), total: BigInt(answer.total) }
  }

  async getBalance(domainSeparators: Hex[]): Promise<{ domainSeparator: Hex; balance: bigint }[]> {
    const answer = await this.#request('GET_BALANCE', { domainSeparators }, 'BALANCE_RESULT')
    return answer.balances.map((b) => ({ domainSeparator: b.domainSeparator, balance: BigInt(b.balance) }))
  }

  async getHistory(query: { domainSeparators: Hex[]; cursor?: string; limit?: number }): Promise<{ transfers: Transfer[]; nextCursor: string | null }> {
    const { transfers, nextCursor } = await this.#request('GET_HISTORY', query, 'HISTORY_RESULT')
    return { transfers, nextCursor }
  }

  submitPayment(transferRequest: TransferRequest) {
    return this.#request('SUBMIT_PAYMENT', { transferRequest }, 'SUBMIT_PAYMENT_ACK')
  }

  submitAcquiring(buyAcquiringPackRequest: BuyAcquiringPackRequest) {
    return this.#request('SUBMIT_ACQUIRING', { buyAcquiringPackRequest }, 'SUBMIT_ACQUIRING_ACK')
  }

  getSubmissionStatus(payloadId: string): Promise<SubmissionStatusPush> {
    return this.#request('GET_SUBMISSION_STATUS', { payloadId }, 'SUBMISSION_STATUS')
  }

  /** Subscribes to a channel; the subscription is renewed after every reconnect. */
  async subscribe(channel: Channel, domainSeparators: Hex[]): Promise<Hex[]> {
    for (const separator of domainSeparators) this.#subscriptions[channel].add(separator)
    const type = channel === 'BALANCE' ? 'SUBSCRIBE_BALANCE' : 'SUBSCRIBE_TRANSFERS'
    return (await this.#request(type, { domainSeparators }, `${type}_ACK`)).subscribedSeparators
  }

  async unsubscribe(channel: Channel, domainSeparators: Hex[]): Promise<Hex[]> {
    for (const separator of domainSeparators) this.#subscriptions[channel].delete(separator)
    return (await this.#request('UNSUBSCRIBE', { channel, domainSeparators }, 'UNSUBSCRIBE_ACK')).unsubscribedSeparators
  }

  /** Every push: BALANCE_UPDATE, TRANSFER_NOTIFICATION, SUBMISSION_STATUS. Returns a remover. */
  onPush(handler: (push: ServerMessage) => void): () => void {
    this.#pushHandlers.add(handler)
    return () => this.#pushHandlers.delete(handler)
  }

  onStatus(handler: (push: SubmissionStatusPush) => void): () => void {
    this.#statusHandlers.add(handler)
    return () => this.#statusHandlers.delete(handler)
  }

  /**
   * Pays a charge session: fees on top of the principal from the gateway, the token's permit nonce,
   * both signatures, the submission, and its statuses until SUCCESS (mined) or a final FAILURE. A
   * FAILURE with `failureCategory: "DROPPED"` and `watchedUntilBlock` is passed to `onStatus` (a wallet
   * may show "dropped, still watched until block N") but does not end the wait: the submitter watches
   * for the receipt up to that block and then announces SUCCESS, REVERTED, or the DROPPED failure again
   * without `watchedUntilBlock`, which is final.
   */
  async pay(session: PaymentSession, token: SessionToken, opts: { payloadId?: string; onStatus?(push: SubmissionStatusPush): void } = {}): Promise<FinalStatus> {
    if (session.chainId !== this.options.chainId) throw new BaseError(`the session is for chain ${session.chainId}, this wallet for ${this.options.chainId}`)
    const principal = BigInt(session.principal)
    const [{ fees }, nonce] = await Promise.all([
      this.getFees(token.domainSeparator, principal, session.acquirerId, 'PRINCIPAL'),
      this.getNonce(token.domainSeparator),
    ])
    const signed = await signPayment({
      payer: this.options.account,
      settlementContract: session.settlementContract,
      tokenDomain: { name: token.name, version: token.version, chainId: session.chainId, verifyingContract: session.token },
      recipient: session.beneficiary,
      principal,
      fee: fees,
      permitNonce: nonce,
      deadline: BigInt(session.deadline),
      orderReference: session.orderReference,
      acquirerId: session.acquirerId,
    })
    const request = transferRequestOf(signed, opts.payloadId ?? crypto.randomUUID())
    return this.follow(request.payloadId, () => this.submitPayment(request), opts.onStatus)
  }

  /** Runs `submit` and resolves with the payload's final status (pushed, or asked for after a reconnect); see `pay`. */
  async follow(payloadId: string, submit: () => Promise<unknown>, onStatus?: (push: SubmissionStatusPush) => void): Promise<FinalStatus> {
    const removeStatus = onStatus ? this.onStatus((push) => push.payloadId === payloadId && onStatus(push)) : undefined
    const final = new Promise<FinalStatus>((resolve) => this.#followed.set(payloadId, resolve))
    try {
      await submit()
      return await final
    } finally {
      this.#followed.delete(payloadId)
      removeStatus?.()
    }
  }

  async #open(): Promise<void> {
    const WebSocket = await resolveWebSocket()
    const socket = new WebSocket(this.options.url)
    await new Promise<void>((resolve, reject) => {
      socket.onopen = () => resolve()
      socket.onerror = () => reject(new GatewayError('CONNECTION_CLOSED', 'CONNECTION', `cannot connect to ${this.options.url}`))
    })
    this.#socket = socket
    this.#attempt = 0
    socket.onmessage = (event) => this.#receive(String(event.data))
    socket.onclose = (event) => this.#closed(socket, event.code, event.reason)
    socket.onerror = null
    await this.#resume()
  }

  /** After a reconnect: renew subscriptions and ask for the status of every followed payload. */
  async #resume(): Promise<void> {
    for (const channel of ['BALANCE', 'TRANSFERS'] as const) {
      const separators = [...this.#subscriptions[channel]]
      if (separators.length > 0) await this.subscribe(channel, separators).catch((error: Error) => this.options.onError?.(error))
    }
    for (const payloadId of this.#followed.keys()) {
      this.getSubmissionStatus(payloadId).then((push) => this.#status(push), () => {})
    }
  }

  #closed(socket: WebSocketLike, code: number, reason: string): void {
    if (socket !== this.#socket) return
    this.#socket = undefined
    this.#failAll(new GatewayError('CONNECTION_CLOSED', 'CONNECTION', `connection closed (${code} ${reason})`))
    if (!this.#wanted) return
    if (code === closeCodes.superseded) {
      this.#wanted = false
      this.options.onError?.(new GatewayError('CONNECTION_CLOSED', 'CONNECTION', 'superseded: another connection for this address took over'))
      return
    }
    void this.#reconnect()
  }

  async #reconnect(): Promise<void> {
    while (this.#wanted && !this.#socket) {
      await new Promise((resolve) => setTimeout(resolve, reconnectDelay(this.#attempt++, { ...DEFAULT_RECONNECT, ...this.options.reconnect })))
      if (!this.#wanted) return
      try {
        await this.#open()
      } catch {
        // Still down: the loop waits a longer delay and tries again.
      }
    }
  }

  #receive(text: string): void {
    let message: ServerMessage
    try {
      message = JSON.parse(text) as ServerMessage
    } catch {
      this.options.onError?.(new GatewayError('INVALID_FORMAT', 'STRUCTURAL_ERROR', `unreadable frame from the gateway: ${text.slice(0, 100)}`))
      return
    }
    const requestId = 'requestId' in message ? message.requestId : undefined
    const pending = requestId === undefined ? undefined : this.#pending.get(requestId)
    if (pending) {
      this.#pending.delete(requestId!)
      clearTimeout(pending.timer)
      if (message.type === 'ERROR') pending.reject(new GatewayError(message.errorCode, message.errorCategory, message.message))
      else pending.resolve(message)
      return
    }
    if (message.type === 'SUBMISSION_STATUS') this.#status(message)
    else if (message.type === 'ERROR') this.options.onError?.(new GatewayError(message.errorCode, message.errorCategory, message.message))
    for (const handler of this.#pushHandlers) handler(message)
  }

  #status(push: SubmissionStatusPush): void {
    for (const handler of this.#statusHandlers) handler(push)
    if (isFinal(push)) this.#followed.get(push.payloadId)?.(push)
  }

  async #request<type extends ClientMessageType, answer extends ServerMessage['type']>(
    type: type,
    fields: Omit<ClientPayloads[type], 'requestId'>,
    answerType: answer,
  ): Promise<Answer<answer>> {
    const socket = this.#socket
    if (!socket || socket.readyState !== WS_OPEN) throw new GatewayError('CONNECTION_CLOSED', 'CONNECTION', 'not connected')
    const requestId = `${++this.#nextId}`
    const envelope = await signEnvelope({ account: this.options.account, chainId: this.options.chainId, type, payload: { requestId, ...fields } })
    const answer = await new Promise<ServerMessage>((resolve, reject) => {
      const timeout = this.options.timeout ?? 15_000
      const timer = setTimeout(() => {
        this.#pending.delete(requestId)
        reject(new GatewayError('TIMEOUT', 'CONNECTION', `no answer to ${type} within ${timeout} ms`))
      }, timeout)
      this.#pending.set(requestId, { resolve, reject, timer })
      socket.send(JSON.stringify(envelope))
    })
    if (answer.type !== answerType) throw new GatewayError('INTERNAL_ERROR', 'INTERNAL_ERROR', `expected ${answerType}, got ${answer.type}`)
    return answer as Answer<answer>
  }

  #failAll(error: Error): void {
    for (const [id, pending] of this.#pending) {
      clearTimeout(pending.timer)
      pending.reject(error)
      this.#pending.delete(id)
    }
  }
}
