/**
 * The client's HTTP over mutual TLS (undici): one connection pool per client certificate — replaced when
 * the credentials change, so a renewed certificate is used without a new client — a timeout on every
 * request, and every failure turned into one of the client's errors. A 2xx answer is handed back with
 * its body unread, so a report can be streamed on.
 */
import { Agent, fetch, type Response } from 'undici'
import type { ClientCredentials } from './credentials.js'
import { MerchantApiError, MerchantNetworkError, MerchantTimeoutError, type ProblemDetails } from './errors.js'

export interface TransportOptions {
  /** `https://host:port` of the checkout engine. */
  baseUrl: string
  /** Fixed credentials, or a function asked before each request (files re-read, a secret store). */
  credentials: ClientCredentials | (() => Promise<ClientCredentials>)
  /** Until the answer's headers, and then between two chunks of its body. */
  timeoutMs: number
  /** The name the engine's certificate is checked for, when it is not the base URL's host. */
  servername?: string
}

export type Query = Record<string, string | number | undefined>

export interface RequestInit {
  body?: unknown
  headers?: Record<string, string | undefined>
  query?: Query
}

export interface Transport {
  /** The answer, 2xx, with `read` applied while the timeout still runs. */
  send<T>(method: string, path: string, init: RequestInit, read: (response: Response, url: string) => Promise<T>): Promise<T>
  close(): Promise<void>
}

const TIMEOUT_CODES = new Set(['UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'UND_ERR_CONNECT_TIMEOUT'])

export function createTransport({ baseUrl, credentials, timeoutMs, servername }: TransportOptions): Transport {
  const origin = baseUrl.replace(/\/+$/, '')
  let pool: { cert: string; agent: Agent } | undefined
  const dispatcher = async () => {
    const current = typeof credentials === 'function' ? await credentials() : credentials
    if (pool?.cert !== current.cert) {
      // Requests under way on the old certificate finish: the old pool closes gracefully.
      void pool?.agent.close().catch(() => {})
      const connect = { key: current.key, cert: current.cert, ca: current.ca, ...(servername && { servername }) }
      pool = { cert: current.cert, agent: new Agent({ connect, headersTimeout: timeoutMs, bodyTimeout: timeoutMs }) }
    }
    return pool.agent
  }

  return {
    async send(method, path, init, read) {
      const url = `${origin}${path}${queryString(init.query)}`
      const agent = await dispatcher()
      const controller = new AbortController()
      const timer = setTimeout(() => controller.abort(), timeoutMs)
      try {
        const headers = Object.fromEntries(Object.entries({ accept: 'application/json', ...init.headers }).filter(([, value]) => value !== undefined)) as Record<string, string>
        if (init.body !== undefined) headers['content-type'] = 'application/json'
        const body = init.body === undefined ? undefined : JSON.stringify(init.body)
        const response = await fetch(url, { method, headers, body, dispatcher: agent, signal: controller.signal })
        if (!response.ok) throw new MerchantApiError(await problemOf(response), url)
        return await read(response, url)
      } catch (error) {
        throw clientError(error, `${method} ${url}`, url, timeoutMs, controller.signal.aborted)
      } finally {
        clearTimeout(timer)
      }
    },
    close: async () => pool?.agent.close(),
  }
}

/** An error the caller can act on: the API's problem as it is, else a network failure or a timeout. */
export function clientError(error: unknown, what: string, url: string, timeoutMs: number, aborted = false): Error {
  if (error instanceof MerchantApiError || error instanceof MerchantNetworkError) return error
  const codes: unknown[] = []
  for (let at: unknown = error; at instanceof Error && codes.length < 8; at = at.cause) codes.push((at as NodeJS.ErrnoException).code)
  if (aborted || codes.some((code) => TIMEOUT_CODES.has(String(code)))) return new MerchantTimeoutError(timeoutMs, url, error)
  const reason = error instanceof Error ? ((error.cause as Error | undefined)?.message ?? error.message) : String(error)
  return new MerchantNetworkError(`${what} failed: ${reason}`, url, error)
}

/** The problem+json body; an answer without one (a proxy's page) becomes a problem with its text. */
async function problemOf(response: Response): Promise<ProblemDetails> {
  const text = await response.text()
  try {
    const body = JSON.parse(text) as Partial<ProblemDetails>
    if (typeof body.title === 'string') return { type: 'about:blank', detail: '', ...body, title: body.title, status: response.status }
  } catch {
    // Not JSON: described below.
  }
  return { type: 'about:blank', title: response.statusText || `HTTP ${response.status}`, status: response.status, detail: text.slice(0, 500) }
}

function queryString(query: Query | undefined): string {
  const params = new URLSearchParams()
  for (const [name, value] of Object.entries(query ?? {})) if (value !== undefined) params.set(name, String(value))
  const text = params.toString()
  return text ? `?${text}` : ''
}
