/**
 * A small Server-Sent Events client for `/events/stream`, the way an `EventSource` behaves: it starts
 * from `since`, and after every drop (the explorer killed, the stream ended) reconnects with the last
 * `id:` it saw as `Last-Event-ID`. It counts connects and answers by status, and feeds a `FeedTally`.
 */
import { request, type ClientRequest } from 'node:http'
import { setTimeout as sleep } from 'node:timers/promises'
import type { Settlement } from '../../src/wire/index.js'
import { FeedTally } from './feed-tally.js'

export interface SseSubscriberStats {
  connects: number
  /** Answers by status: 200 for every stream opened. */
  statuses: Record<string, number>
  /** Connection refused or reset (the explorer down). */
  networkErrors: number
  frames: number
}

export class SseSubscriber {
  readonly tally = new FeedTally()
  readonly stats: SseSubscriberStats = { connects: 0, statuses: {}, networkErrors: 0, frames: 0 }
  #lastEventId: string | undefined
  #request: ClientRequest | undefined
  #streaming = false
  #stopped = false
  #loop: Promise<void> | undefined

  constructor(
    readonly name: string,
    private readonly url: string,
    private readonly query: URLSearchParams,
    since: string,
  ) {
    this.query.set('since', since)
  }

  /** Whether a stream is open now. */
  get streaming(): boolean {
    return this.#streaming
  }

  start(): void {
    this.#loop = this.#run()
  }

  /** Ends the current stream; it reconnects by itself unless stopped. */
  drop(): void {
    this.#request?.destroy()
  }

  async stop(): Promise<void> {
    this.#stopped = true
    this.#request?.destroy()
    await this.#loop
  }

  async #run(): Promise<void> {
    let delay = 100
    while (!this.#stopped) {
      const opened = await this.#stream()
      if (opened) delay = 100
      if (this.#stopped) return
      await sleep(delay)
      delay = Math.min(delay * 2, 2_000)
    }
  }

  /** One stream until it ends; resolves whether it was opened. */
  #stream(): Promise<boolean> {
    return new Promise((resolve) => {
      this.stats.connects++
      const headers: Record<string, string> = { accept: 'text/event-stream' }
      if (this.#lastEventId !== undefined) headers['last-event-id'] = this.#lastEventId
      let opened = false
      const req = request(`${this.url}/events/stream?${this.query}`, { headers }, (res) => {
        const status = String(res.statusCode)
        this.stats.statuses[status] = (this.stats.statuses[status] ?? 0) + 1
        if (res.statusCode !== 200) {
          res.resume()
          res.on('end', () => resolve(false))
          return
        }
        opened = true
        this.#streaming = true
        let pending = ''
        res.setEncoding('utf8')
        res.on('data', (chunk: string) => {
          pending += chunk
          let end
          while ((end = pending.indexOf('\n\n')) >= 0) {
            this.#frame(pending.slice(0, end))
            pending = pending.slice(end + 2)
          }
        })
        const done = () => {
          this.#streaming = false
          resolve(true)
        }
        res.on('end', done)
        res.on('error', done)
        res.on('close', done)
      })
      this.#request = req
      req.on('error', () => {
        this.#streaming = false
        if (!opened) this.stats.networkErrors++
        resolve(opened)
      })
      req.end()
    })
  }

  #frame(block: string): void {
    let event = 'message'
    let id: string | undefined
    let data: string | undefined
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) continue
      const colon = line.indexOf(':')
      const field = line.slice(0, colon)
      const value = line.slice(colon + 1).replace(/^ /, '')
      if (field === 'event') event = value
      else if (field === 'id') id = value
      else if (field === 'data') data = data === undefined ? value : `${data}\n${value}`
    }
    if (data === undefined) return
    this.stats.frames++
    if (event === 'settlement') this.tally.delivered(JSON.parse(data) as Settlement)
    else if (event === 'removed') this.tally.removed(JSON.parse(data) as Settlement)
    // A frame's id is where to resume after it, removals included.
    if (id !== undefined && (event === 'settlement' || event === 'removed')) this.#lastEventId = id
  }
}
