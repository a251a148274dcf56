/**
 * Issue 43 item 2: the curl lines of the README and of every page under docs/ run as written against
 * `npm start`, started as a user starts it (npm-start.ts). Each ```sh block's assignments are evaluated by
 * `sh` (the README's dates count back from the clock); the documented ports (8545, 4001, 4002, 4003) stand
 * for the ones this run was given, and the merchant API's certificate files are the demo merchant's in
 * `.data/demo-merchant/`, as docs/checkout.md says. Every answer must be 2xx and not empty, and where the
 * line promises settlements (the explorer's lists, exports and totals) there must be some: demo traffic
 * pays the store's wallet in USDC and EURC, 1 to 500 of a token, 20 a second. Also item 3: `npm start`
 * names the explorer's web page `/` first, and `/` is that page for a browser.
 */
import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { Agent, fetch as tlsFetch } from 'undici'
import { repoRoot } from '../../src/devnet/testing/index.js'
import { curlRequest, evaluateAssignments, shellBlocks, type CurlRequest } from './doc-commands.js'
import { spawnNpmStart, type NpmStart } from './npm-start.js'

let stack: NpmStart

before(async () => {
  stack = await spawnNpmStart()
  const deadline = Date.now() + 120_000
  while (!(['devnet', 'explorer', 'dataService', 'checkout', 'store'] as const).every((piece) => stack.printed(piece))) {
    if (stack.child.exitCode !== null || Date.now() > deadline) assert.fail(`npm start did not come up:\n${stack.output()}`)
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
})

after(() => stack?.kill())

const docFiles = () => [join(repoRoot, 'README.md'), ...readdirSync(join(repoRoot, 'docs')).filter((name) => name.endsWith('.md')).map((name) => join(repoRoot, 'docs', name))]

/** The documented default addresses, and this run's. */
function onThisStack(url: string): string {
  const ports: Record<string, string> = {
    'http://127.0.0.1:8545': stack.printed('devnet')!,
    'http://127.0.0.1:4001': stack.printed('explorer')!,
    'http://127.0.0.1:4002': stack.printed('dataService')!,
    'https://127.0.0.1:4003': stack.printed('checkout')!,
  }
  const base = Object.keys(ports).find((documented) => url === documented || url.startsWith(`${documented}/`) || url.startsWith(`${documented}?`))
  if (!base) throw new Error(`${url}: not a documented address of npm start`)
  return ports[base]!.replace(/\/$/, '') + url.slice(base.length)
}

async function send(request: CurlRequest): Promise<{ status: number; type: string; text: string }> {
  const dir = join(stack.cwd, '.data/demo-merchant')
  const dispatcher = request.tls
    ? new Agent({ connect: { cert: readFileSync(join(dir, request.tls.cert)), key: readFileSync(join(dir, request.tls.key)), ca: readFileSync(join(dir, request.tls.ca)) } })
    : undefined
  try {
    const response = await tlsFetch(onThisStack(request.url), { method: request.method, headers: request.headers, body: request.body, dispatcher })
    return { status: response.status, type: response.headers.get('content-type') ?? '', text: await response.text() }
  } finally {
    await dispatcher?.close()
  }
}

/** What is wrong with an answer, or undefined: 2xx, not empty, and settlements where the line lists or counts them. */
function problemWith(request: CurlRequest, answer: { status: number; type: string; text: string }): string | undefined {
  if (answer.status < 200 || answer.status > 299) return `${answer.status} ${answer.text.slice(0, 300)}`
  if (answer.text.trim() === '') return 'an empty answer'
  const explorer = request.url.startsWith('http://127.0.0.1:4001/')
  if (answer.type.startsWith('application/json')) {
    const body = JSON.parse(answer.text)
    if (body.error) return `an error: ${answer.text.slice(0, 300)}`
    if (Array.isArray(body.events) && body.events.length === 0) return 'no settlement listed'
    if (typeof body.totalSettlements === 'number' && body.totalSettlements === 0) return 'totals of no settlement'
    if (Array.isArray(body.buckets) && !body.buckets.some((b: { settlements: number }) => b.settlements > 0)) return 'a series of empty buckets'
  } else if (explorer && answer.text.trim().split('\n').length < 2) return 'an export of no settlement'
  return undefined
}

test('every curl line of the README and docs/ answers 2xx with data on npm start', { timeout: 240_000 }, async () => {
  const blocks = docFiles().flatMap(shellBlocks)
  // Each round evaluates the assignments again, as a reader's shell would at the time of typing ($NOW).
  const requestsNow = () => blocks.flatMap((block) => block.curls.map((line) => curlRequest(line, evaluateAssignments(block.assignments))))
  assert.ok(requestsNow().length >= 8, `the docs' curl lines: ${requestsNow().map((r) => r.line).join('\n')}`)
  // Demo traffic builds the data up; a newcomer who tries after a minute sees what this sees.
  let problems: string[] = []
  const deadline = Date.now() + 120_000
  do {
    problems = []
    const requests = requestsNow()
    for (const request of requests) {
      const problem = problemWith(request, await send(request))
      if (problem) problems.push(`${request.line}\n  -> ${problem}`)
    }
    if (problems.length === 0) break
    await new Promise((resolve) => setTimeout(resolve, 2000))
  } while (Date.now() < deadline)
  assert.deepEqual(problems, [])
})

test('npm start names the explorer’s web page `/` first, and `/` is the page in a browser', async () => {
  const line = stack.output().split('\n').find((l) => l.startsWith('explorer:'))!
  assert.match(line, /^explorer: +http:\/\/127\.0\.0\.1:\d+\/ \(the web page, for a browser; JSON at http:\/\/\S+\/events/)
  assert.match(stack.output(), /open http:\/\/\S+ \(the demo store\) and http:\/\/127\.0\.0\.1:\d+\/ \(the explorer\)/)
  const page = await fetch(stack.printed('explorer')!, { headers: { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' } })
  assert.match(page.headers.get('content-type')!, /^text\/html/)
})
