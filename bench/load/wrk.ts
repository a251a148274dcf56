/**
 * HTTP load from wrk (C), the only generator on these machines fast enough to show a uWS server's
 * ceiling (a Node generator tops out near 40k req/s; DESIGN.md). Two modes:
 * - closed loop: `connections` keep-alive connections on one wrk thread, as fast as the server answers;
 * - paced: a constant `rate` on one wrk thread whose connections take the slots in turn (load.lua;
 *   wrk2 is not packaged here); latency from each send, and the sends that found no free connection
 *   at their slot counted with how late they left.
 * There is deliberately no fallback: a slower generator would measure itself.
 */
import { spawn, spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'

export interface WrkLoad {
  /** `http://host:port` */
  url: string
  /** One path repeated, several taken in turn, or a different recipient page on every request. */
  target: { path: string } | { paths: string[] } | { pages: RandomPages }
  durationMs: number
  /** Closed loop when absent. */
  rate?: number
  /** Keep-alive connections, all on one wrk thread. */
  connections?: number
  /** Request headers (wrk -H), e.g. `accept-encoding`. */
  headers?: Record<string, string>
}

/**
 * `/events?recipient=R&limit=20&cursor=C`: R the bench chain's recipient i, firstRecipient ≤ i <
 * firstRecipient + recipients; C a random position in [fromBlock, toBlock] (a random block and a
 * random log index below 2^31), so that no two requests ask the same page.
 */
export interface RandomPages {
  firstRecipient: number
  recipients: number
  fromBlock: number
  toBlock: number
  seed: number
}

export interface WrkResult {
  requestsPerSecond: number
  requests: number
  seconds: number
  bytesPerResponse: number
  /** ms, wrk's own, from each request's send. */
  p50: number
  p90: number
  p99: number
  p999: number
  max: number
  errors: number
  /** Paced runs: requests sent more than 1 ms after their slot (every connection was busy), and how late (ms). */
  lateSends: number
  lateShare: number
  lateP99: number
  lateMax: number
}

const SCRIPT = fileURLToPath(new URL('./wrk/load.lua', import.meta.url))
export const CLOSED_CONNECTIONS = 32
export const PACED_CONNECTIONS = 64

/** Throws with the install hint when wrk is missing. */
export function requireWrk(): string {
  const probe = spawnSync('wrk', ['--version'], { encoding: 'utf8' })
  if (probe.error) {
    throw new Error('the HTTP bench needs wrk (a C load generator) and found none on PATH: install it with `apt-get install wrk` (Debian/Ubuntu)')
  }
  return (probe.stdout || probe.stderr).split('\n')[0]!.trim()
}

export async function runWrk(load: WrkLoad): Promise<WrkResult> {
  const paced = load.rate !== undefined
  const connections = load.connections ?? (paced ? PACED_CONNECTIONS : CLOSED_CONNECTIONS)
  const env: Record<string, string> = { ...(process.env as Record<string, string>) }
  let path = '/'
  if ('path' in load.target) path = load.target.path
  else if ('paths' in load.target) env.WRK_PATHS = load.target.paths.join('\n')
  else {
    const p = load.target.pages
    env.WRK_PAGES = `${p.firstRecipient},${p.recipients},${p.fromBlock},${p.toBlock},${p.seed}`
  }
  if (paced) env.WRK_RATE = String(load.rate!)
  const headers = Object.entries(load.headers ?? {}).flatMap(([name, value]) => ['-H', `${name}: ${value}`])
  const args = ['-t', '1', '-c', String(connections), '-d', `${Math.max(1, Math.round(load.durationMs / 1000))}s`, '--timeout', '10s', ...headers, '-s', SCRIPT, `${load.url}${path}`]
  const output = await new Promise<string>((resolve, reject) => {
    const child = spawn('wrk', args, { env, stdio: ['ignore', 'pipe', 'pipe'] })
    let text = ''
    child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (text += chunk.toString()))
    child.once('error', reject)
    child.once('exit', (code) => (code === 0 ? resolve(text) : reject(new Error(`wrk ${args.join(' ')} exited with ${code}:\n${text}`))))
  })
  const line = output.split('\n').find((l) => l.startsWith('WRK_JSON '))
  if (!line) throw new Error(`wrk printed no result:\n${output}`)
  const r = JSON.parse(line.slice('WRK_JSON '.length)) as {
    requests: number
    durationUs: number
    bytes: number
    p50: number
    p90: number
    p99: number
    p999: number
    max: number
    sends: number
    lateSends: number
    lateP99: number
    lateMax: number
    errors: Record<string, number>
  }
  const seconds = r.durationUs / 1e6
  return {
    requestsPerSecond: Math.round(r.requests / seconds),
    requests: r.requests,
    seconds,
    bytesPerResponse: r.requests > 0 ? Math.round(r.bytes / r.requests) : 0,
    p50: r.p50,
    p90: r.p90,
    p99: r.p99,
    p999: r.p999,
    max: r.max,
    errors: Object.values(r.errors).reduce((a, b) => a + b, 0),
    lateSends: r.lateSends,
    lateShare: r.sends > 0 ? r.lateSends / r.sends : 0,
    lateP99: r.lateP99,
    lateMax: r.lateMax,
  }
}
