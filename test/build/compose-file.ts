/**
 * compose.yaml read without a container engine or a YAML library (none is among the dependencies): the
 * subset the file is written in — block mappings and sequences by indentation, flow `[…]` and `{…}`,
 * plain and quoted scalars, comments, anchors (`&a`), aliases (`*a`) and merge keys (`<<: *a`). Anything
 * else (block scalars, tags, multi-line flow) is refused with its line, so that a file written otherwise
 * fails the test instead of being misread.
 */
import { stripComment } from '../helpers/strip-comment.js'

export type Yaml = string | Yaml[] | { [key: string]: Yaml }

interface Line {
  n: number
  indent: number
  text: string
}

export function parseComposeYaml(source: string): Record<string, Yaml> {
  const lines: Line[] = []
  source.split('\n').forEach((raw, i) => {
    const text = stripComment(raw).trimEnd()
    if (text.trim() === '') return
    if (/^\s*[|>]/.test(text) || /:\s*[|>][-+]?$/.test(text) || /(^|\s)!\S/.test(text)) throw new Error(`compose.yaml:${i + 1}: block scalars and tags are outside the subset read here`)
    lines.push({ n: i + 1, indent: text.length - text.trimStart().length, text: text.trim() })
  })
  const anchors = new Map<string, Yaml>()
  let at = 0

  function block(indent: number): Yaml {
    const line = lines[at]!
    return line.text.startsWith('- ') || line.text === '-' ? sequence(line.indent) : mapping(indent)
  }

  function sequence(indent: number): Yaml[] {
    const out: Yaml[] = []
    while (at < lines.length && lines[at]!.indent === indent && lines[at]!.text.startsWith('-')) {
      const line = lines[at++]!
      const rest = line.text.slice(1).trim()
      if (rest === '') out.push(block(lines[at]!.indent))
      else out.push(scalarOrFlow(rest, line.n))
    }
    return out
  }

  function mapping(indent: number): Record<string, Yaml> {
    const out: Record<string, Yaml> = {}
    while (at < lines.length && lines[at]!.indent === indent) {
      const line = lines[at++]!
      const m = /^("[^"]*"|'[^']*'|[^:\s][^:]*?):(?:\s+(.*))?$/.exec(line.text)
      if (!m) throw new Error(`compose.yaml:${line.n}: not a "key: value" line: ${line.text}`)
      const key = unquote(m[1]!)
      let rest = m[2]?.trim() ?? ''
      let anchor: string | undefined
      const a = /^&(\S+)\s*(.*)$/.exec(rest)
      if (a) [anchor, rest] = [a[1]!, a[2]!]
      let value: Yaml
      if (rest === '') value = at < lines.length && lines[at]!.indent > indent ? block(lines[at]!.indent) : ''
      else if (rest.startsWith('- ')) throw new Error(`compose.yaml:${line.n}: a sequence on the key's line`)
      else value = scalarOrFlow(rest, line.n)
      if (anchor) anchors.set(anchor, value)
      if (key === '<<') {
        if (typeof value !== 'object' || Array.isArray(value)) throw new Error(`compose.yaml:${line.n}: << takes a mapping`)
        for (const [k, v] of Object.entries(value)) if (!(k in out)) out[k] = v
      } else out[key] = value
    }
    return out
  }

  function scalarOrFlow(text: string, n: number): Yaml {
    if (text.startsWith('*')) {
      const value = anchors.get(text.slice(1))
      if (value === undefined) throw new Error(`compose.yaml:${n}: unknown alias ${text}`)
      return value
    }
    if (!text.startsWith('[') && !text.startsWith('{')) return unquote(text)
    let i = 0
    const skip = () => {
      while (text[i] === ' ') i++
    }
    const flow = (): Yaml => {
      skip()
      if (text[i] === '[' || text[i] === '{') {
        const seq = text[i++] === '['
        const items: Yaml[] = []
        const map: Record<string, Yaml> = {}
        for (;;) {
          skip()
          if (text[i] === (seq ? ']' : '}')) return i++, seq ? items : map
          if (seq) items.push(flow())
          else {
            const key = flowScalar(':')
            if (text[i++] !== ':') throw new Error(`compose.yaml:${n}: a flow mapping's entry without ":"`)
            map[key] = flow()
          }
          skip()
          if (text[i] === ',') i++
          else if (text[i] !== (seq ? ']' : '}')) throw new Error(`compose.yaml:${n}: unreadable flow collection: ${text}`)
        }
      }
      return flowScalar('')
    }
    const flowScalar = (stop: string): string => {
      skip()
      if (text[i] === '"' || text[i] === "'") {
        const end = text.indexOf(text[i]!, i + 1)
        const value = text.slice(i + 1, end)
        i = end + 1
        return value
      }
      const start = i
      while (i < text.length && !',]}'.includes(text[i]!) && !(stop && text[i] === stop && (text[i + 1] === ' ' || text[i + 1] === undefined))) i++
      return text.slice(start, i).trim()
    }
    const value = flow()
    skip()
    if (i !== text.length) throw new Error(`compose.yaml:${n}: text after a flow collection: ${text}`)
    return value
  }

  const document = mapping(0)
  if (at !== lines.length) throw new Error(`compose.yaml:${lines[at]!.n}: unexpected indentation`)
  return document
}

function unquote(text: string): string {
  return /^(".*"|'.*')$/.test(text) ? text.slice(1, -1) : text
}
