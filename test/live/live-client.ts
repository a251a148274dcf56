/**
 * Real clients for the live feeds in tests: a WebSocket client (the `ws` package) that records every
 * message and close, and an SSE client that reads the HTTP stream as it arrives and parses frames.
 */
import { request, type IncomingMessage } from 'node:http'
import { after, before } from 'node:test'
import WebSocket from 'ws'
import { decodeCursor } from '../../src/explorer/store/cursor.js'
import { encodePk } from '../../src/explorer/store/keys.js'
import { settlementsOnChain, startTestExplorer, waitFor, waitForHead, type TestExplorer, sendSettlements, startLocalChain, type LocalChain } from '../../src/devnet/testing/index.js'

export interface LiveMessage {
  type: string
  data?: any
  cursor?: string
  subscription?: string
  error?: { code: string; message: string }
  [key: string]: unknown
}

export interface WsClient {
  socket: WebSocket
  messages: LiveMessage[]
  closed: { code: number; reason: string } | undefined
  send(message: unknown): void
  sendRaw(text: string): void
  /** Resolves with the first message after `from` (an index into `messages`) that satisfies `match`. */
  next(match: (m: LiveMessage) => boolean, from?: number, timeoutMs?: number): Promise<LiveMessage>
  /** SETTLEMENT messages, optionally of one subscription. */
  settlements(subscription?: string): LiveMessage[]
  waitForSettlements(n: number, subscription?: string, timeoutMs?: number): Promise<LiveMessage[]>
  close(): Promise<void>
}

export async function connectWs(baseUrl: string): Promise<WsClient> {
  const socket = new WebSocket(`${baseUrl.replace(/^http/, 'ws')}/stream`)
  const client: WsClient = {
    socket,
    messages: [],
    closed: undefined,
    send: (message) => socket.send(JSON.stringify(message)),
    sendRaw: (text) => socket.send(text),
    next: (match, from = 0, timeoutMs = 20_000) => waitFor('a matching message', () => client.messages.slice(from).find(match), timeoutMs),
    settlements: (subscription) => client.messages.filter((m) => m.type === 'SETTLEMENT' && (subscription === undefined || m.subscription === subscription)),
    waitForSettlements: (n, subscription, timeoutMs = 30_000) =>
      waitFor(`${n} settlements${subscription ? ` on ${subscription}` : ''}`, () => {
        const found = client.settlements(subscription)
        return found.length >= n ? found : undefined
      }, timeoutMs),
    async close() {
      if (client.closed) return
      const done = new Promise((resolve) => socket.once('close', resolve))
      socket.close()
      await done
    },
  }
  socket.on('message', (data) => client.messages.push(JSON.parse(data.toString()) as LiveMessage))
  socket.on('close', (code, reason) => (client.closed = { code, reason: reason.toString() }))
  await new Promise<void>((resolve, reject) => {
    socket.once('open', resolve)
    socket.once('error', reject)
    // The refusal's connection is the client's to end (ws leaves it open once this is listened to).
    socket.once('unexpected-response', (req, res) => {
      req.destroy()
      reject(new Error(`upgrade refused with ${res.statusCode}`))
    })
  })
  return client
}

/** Subscribes and waits for the acknowledgement. */
export async function subscribe(client: WsClient, message: Record<string, unknown>): Promise<LiveMessage> {
  const from = client.messages.length
  client.send({ type: 'SUBSCRIBE', channel: 'settlements', ...message })
  return client.next((m) => m.type === 'SUBSCRIBED' || m.type === 'ERROR', from)
}

export interface SseFrame {
  event: string
  id?: string
  data?: string
}

export interface SseClient {
  status: number
  headers: IncomingMessage['headers']
  frames: SseFrame[]
  /** Comment lines (without the colon), heartbeats included. */
  comments: string[]
  body: string
  ended: boolean
  settlements(): any[]
  close(): void
}

/** Opens `/events/stream` with raw node:http so that the test sees each frame as it arrives. */
export function openSse(baseUrl: string, query = '', headers: Record<string, string> = {}): Promise<SseClient> {
  return new Promise((resolve, reject) => {
    const req = request(`${baseUrl}/events/stream${query}`, { headers: { accept: 'text/event-stream', ...headers } }, (res) => {
      const client: SseClient = {
        status: res.statusCode ?? 0,
        headers: res.headers,
        frames: [],
        comments: [],
        body: '',
        ended: false,
        settlements: () => client.frames.filter((f) => f.event === 'settlement').map((f) => JSON.parse(f.data!)),
        close: () => req.destroy(),
      }
      let pending = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => {
        client.body += chunk
        pending += chunk
        let end
        while ((end = pending.indexOf('\n\n')) >= 0) {
          parseFrame(pending.slice(0, end), client)
          pending = pending.slice(end + 2)
        }
      })
      res.on('end', () => (client.ended = true))
      res.on('error', () => (client.ended = true))
      resolve(client)
    })
    req.on('error', reject)
    req.end()
  })
}

function parseFrame(block: string, client: SseClient): void {
  const frame: SseFrame = { event: 'message' }
  let hasField = false
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) client.comments.push(line.slice(1).trim())
    else {
      const colon = line.indexOf(':')
      const field = line.slice(0, colon)
      const value = line.slice(colon + 1).replace(/^ /, '')
      if (field === 'event') frame.event = value
      else if (field === 'id') frame.id = value
      else if (field === 'data') frame.data = frame.data === undefined ? value : `${frame.data}\n${value}`
      hasField = true
    }
  }
  if (hasField) client.frames.push(frame)
}


export interface LiveFixture extends ClientPool {
  chain: LocalChain
  explorer: TestExplorer
}

export interface ClientPool {
  /** A WebSocket client, closed by `closeClients`. */
  client(): Promise<WsClient>
  /** Closes every client opened so far. */
  closeClients(): Promise<void>
}

/** WebSocket clients of the explorer at `url()`, kept to be closed together. */
export function clientPool(url: () => string): ClientPool {
  const clients: WsClient[] = []
  return {
    async client() {
      const c = await connectWs(url())
      clients.push(c)
      return c
    },
    closeClients: () => Promise.all(clients.splice(0).map((c) => c.close())).then(() => {}),
  }
}

/**
 * Waits until the live hub has published the chain's last settlement: a subscription made from then on
 * starts after it. The indexed head is readable a moment before the hub publishes what was committed, so
 * a test that subscribed right after `waitForHead` could still be sent the setup's settlements (seen:
 * a subscriber counting three new settlements got two of the setup's and one of its own).
 */
export async function waitForPublished(chain: LocalChain, baseUrl: string): Promise<void> {
  const last = (await settlementsOnChain(chain)).at(-1)
  if (!last) return
  const client = await connectWs(baseUrl)
  try {
    let probes = 0
    await waitFor(`the live hub to publish block ${last.blockNumber}`, async () => {
      const ack = await subscribe(client, { id: `published-${++probes}` })
      client.send({ type: 'UNSUBSCRIBE', id: ack.id })
      const start = decodeCursor(ack.cursor as string)
      return start !== undefined && Buffer.compare(encodePk(start.blockNumber, start.logIndex), encodePk(last.blockNumber, last.logIndex)) >= 0
    })
  } finally {
    await client.close()
  }
}

/**
 * Registers before/after hooks for a test file: a fresh anvil with `settlements` payments, an explorer
 * with `env` overrides that has indexed them, and clients closed at the end.
 */
export function useLiveExplorer({ settlements = 3, env = {} }: { settlements?: number; env?: Record<string, string> } = {}): LiveFixture {
  const fixture = clientPool(() => fixture.explorer.url) as LiveFixture
  before(async () => {
    fixture.chain = await startLocalChain()
    await sendSettlements(fixture.chain, settlements)
    fixture.explorer = await startTestExplorer(fixture.chain, env)
    await waitForHead(fixture.chain, fixture.explorer.url)
    await waitForPublished(fixture.chain, fixture.explorer.url)
  })
  after(async () => {
    await fixture.closeClients()
    await fixture.explorer?.stop()
    await fixture.chain?.stop()
  })
  return fixture
}
