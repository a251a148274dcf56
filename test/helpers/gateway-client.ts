/**
 * A raw wallet-gateway client for tests (the `ws` package): it signs envelopes with `signEnvelope` and
 * matches answers by requestId, and it can also send anything else — unsigned objects, crafted
 * envelopes, garbage text, binary or oversized frames — while recording every message and the close.
 */
import type { LocalAccount } from 'viem'
import WebSocket from 'ws'
import { signEnvelope, type Envelope } from '../../src/wire/envelope.js'
import type { ClientMessageType } from '../../src/wire/gateway-messages.js'
import { waitFor } from '../../src/devnet/testing/index.js'

export type GatewayMessage = { type: string; requestId?: string; errorCode?: string; [key: string]: any }

export interface GatewayTestClient {
  socket: WebSocket
  account: LocalAccount
  messages: GatewayMessage[]
  closed: { code: number; reason: string } | undefined
  /** A signed envelope for `payload` (with a fresh requestId unless it has one); nothing is sent. */
  sign(type: ClientMessageType | string, payload: Record<string, unknown>, opts?: { deadline?: number; account?: LocalAccount }): Promise<Envelope>
  /** Signs, sends and resolves with the answer carrying the same requestId. */
  request(type: ClientMessageType | string, payload?: Record<string, unknown>, opts?: { deadline?: number; account?: LocalAccount }): Promise<GatewayMessage>
  /** Sends `message` as JSON and resolves with the answer carrying its payload's requestId. */
  sendAndAnswer(message: unknown): Promise<GatewayMessage>
  send(message: unknown): void
  sendRaw(data: string | Buffer, binary?: boolean): void
  answerTo(requestId: string): Promise<GatewayMessage>
  /** The first message after index `from` that `match` accepts. */
  next(match: (m: GatewayMessage) => boolean, from?: number): Promise<GatewayMessage>
  waitClosed(): Promise<{ code: number; reason: string }>
  close(): Promise<void>
}

let ids = 0

/** `localAddress` picks the client's source address (any of 127.0.0.0/8 reaches a gateway on 127.0.0.1). */
export async function connectGateway(wsUrl: string, account: LocalAccount, chainId: number, { localAddress }: { localAddress?: string } = {}): Promise<GatewayTestClient> {
  const socket = new WebSocket(wsUrl, { localAddress })
  const client: GatewayTestClient = {
    socket,
    account,
    messages: [],
    closed: undefined,
    sign: (type, payload, opts = {}) =>
      signEnvelope({ account: opts.account ?? account, chainId, type, payload: { requestId: `r${++ids}`, ...payload }, deadline: opts.deadline }),
    async request(type, payload = {}, opts) {
      return client.sendAndAnswer(await client.sign(type, payload, opts))
    },
    sendAndAnswer(message) {
      client.send(message)
      return client.answerTo((message as { payload: { requestId: string } }).payload.requestId)
    },
    send: (message) => socket.send(JSON.stringify(message)),
    sendRaw: (data, binary = false) => socket.send(data, { binary }),
    answerTo: (requestId) => client.next((m) => m.requestId === requestId),
    next: (match, from = 0) => waitFor('a matching gateway message', () => client.messages.slice(from).find(match)),
    waitClosed: () => waitFor('the connection to close', () => client.closed),
    async close() {
      if (client.closed) return
      socket.close()
      await client.waitClosed()
    },
  }
  socket.on('message', (data) => client.messages.push(JSON.parse(data.toString()) as GatewayMessage))
  socket.on('close', (code, reason) => (client.closed = { code, reason: reason.toString() }))
  await new Promise<void>((resolve, reject) => {
    socket.once('open', resolve)
    socket.once('error', reject)
    socket.once('unexpected-response', (_request, response) => reject(new Error(`upgrade refused with ${response.statusCode}`)))
  })
  return client
}

/** The push messages of one type received so far. */
export const pushes = (client: GatewayTestClient, type: string) => client.messages.filter((m) => m.type === type && m.requestId === undefined)

