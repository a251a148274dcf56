/**
 * The shell lines of the docs, read as a person copying them would: every ```sh block of a Markdown file,
 * continuation lines joined, comments dropped; `NAME=…` assignments kept to be evaluated by `sh` (they
 * compute dates from the clock), and each `curl` line turned into a request (method, URL, headers, body,
 * client certificate files) that a test can send with fetch. A curl option not known here is an error,
 * so a doc cannot gain a line this reading would silently skip.
 */
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { stripComment } from '../helpers/strip-comment.js'

export interface DocBlock {
  file: string
  /** The block's `NAME=value` lines, in order, as written. */
  assignments: string[]
  /** The block's curl lines, joined and without their trailing comment. */
  curls: string[]
}

export interface CurlRequest {
  line: string
  method: string
  url: string
  headers: Record<string, string>
  body?: string
  /** File names given to --cert, --key and --cacert. */
  tls?: { cert: string; key: string; ca: string }
}

export function shellBlocks(file: string): DocBlock[] {
  const blocks: DocBlock[] = []
  for (const [, text] of readFileSync(file, 'utf8').matchAll(/^```sh\n([\s\S]*?)^```$/gm)) {
    const lines = text!.replace(/\\\n\s*/g, ' ').split('\n').map((line) => stripComment(line).trim()).filter(Boolean)
    const curls = lines.filter((line) => line.startsWith('curl '))
    if (curls.length > 0) blocks.push({ file, assignments: lines.filter((line) => /^[A-Z_]+=/.test(line)), curls })
  }
  return blocks
}

/** The values of a block's assignments, computed by `sh` as the reader's shell would. */
export function evaluateAssignments(assignments: string[]): Record<string, string> {
  const names = assignments.map((line) => line.slice(0, line.indexOf('=')))
  if (names.length === 0) return {}
  const script = `${assignments.join('\n')}\nprintf '%s\\n' ${names.map((name) => `"$${name}"`).join(' ')}`
  const values = execFileSync('sh', ['-c', script], { encoding: 'utf8' }).split('\n')
  return Object.fromEntries(names.map((name, i) => [name, values[i]!]))
}

/** Shell words: single quotes literal, double quotes and bare words with `$NAME` expanded from `variables`. */
function words(line: string, variables: Record<string, string>): string[] {
  const expand = (text: string) =>
    text.replace(/\$\{?([A-Z_]+)\}?/g, (_, name: string) => {
      if (!(name in variables)) throw new Error(`${line}: $${name} is not set in its block`)
      return variables[name]!
    })
  const out: string[] = []
  for (const [, single, double, bare] of line.matchAll(/\s*(?:'([^']*)'|"([^"]*)"|([^\s'"]+))/g)) {
    out.push(single ?? expand(double ?? bare!))
  }
  return out
}

export function curlRequest(line: string, variables: Record<string, string>): CurlRequest {
  const [, ...args] = words(line, variables)
  const request: CurlRequest = { line, method: 'GET', url: '', headers: {} }
  const files: Record<string, string> = {}
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!
    const value = () => args[++i] ?? ''
    if (arg === '-X') request.method = value()
    else if (arg === '-H') {
      const header = value()
      const colon = header.indexOf(':')
      request.headers[header.slice(0, colon).trim().toLowerCase()] = header.slice(colon + 1).trim()
    } else if (arg === '-d' || arg === '--data') {
      request.body = value()
      if (request.method === 'GET') request.method = 'POST'
    } else if (arg === '--cert' || arg === '--key' || arg === '--cacert') files[arg] = value()
    else if (/^-[sOJ]+$/.test(arg)) continue
    else if (/^https?:\/\//.test(arg)) request.url = arg
    else throw new Error(`${line}: curl ${arg} is not something this reading knows`)
  }
  if (!request.url) throw new Error(`${line}: no URL`)
  if (files['--cert']) request.tls = { cert: files['--cert'], key: files['--key']!, ca: files['--cacert']! }
  return request
}
