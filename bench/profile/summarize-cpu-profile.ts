/**
 * Reads a V8 `.cpuprofile` (from `node --cpu-prof`) and lists where the time went: self time per
 * function, and inclusive time per function, so a missed target can name its cost. Usable alone:
 * `tsx bench/profile/summarize-cpu-profile.ts <file.cpuprofile> [rows]`.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { table } from '../lib/format.js'
import { pathToFileURL } from 'node:url'

interface ProfileNode {
  id: number
  callFrame: { functionName: string; url: string; lineNumber: number }
  children?: number[]
}

interface CpuProfile {
  nodes: ProfileNode[]
  samples: number[]
  timeDeltas: number[]
}

export interface ProfileRow {
  name: string
  selfPercent: number
  totalPercent: number
}

const label = (node: ProfileNode) => {
  const { functionName, url, lineNumber } = node.callFrame
  const file = url.replace(/^.*\/(node_modules\/[^/]+|src|bench)\//, '$1/').replace(/^file:\/\//, '')
  return `${functionName || '(anonymous)'} ${file ? `${file}:${lineNumber + 1}` : ''}`.trim()
}

/** The heaviest functions by self time, each with its inclusive share. */
export function summarizeCpuProfile(path: string, rows = 15): ProfileRow[] {
  const profile = JSON.parse(readFileSync(path, 'utf8')) as CpuProfile
  const byId = new Map(profile.nodes.map((n) => [n.id, n]))
  const parent = new Map<number, number>()
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id)

  const self = new Map<string, number>()
  const total = new Map<string, number>()
  let all = 0
  profile.samples.forEach((id, i) => {
    const dt = profile.timeDeltas[i] ?? 0
    all += dt
    const node = byId.get(id)!
    self.set(label(node), (self.get(label(node)) ?? 0) + dt)
    const seen = new Set<string>()
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const name = label(byId.get(at)!)
      if (seen.has(name)) continue
      seen.add(name)
      total.set(name, (total.get(name) ?? 0) + dt)
    }
  })
  const percent = (t: number) => Math.round((t / all) * 1000) / 10
  return [...self.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, rows)
    .map(([name, t]) => ({ name, selfPercent: percent(t), totalPercent: percent(total.get(name) ?? 0) }))
}

/** The largest profile in `dir` (the busiest thread) as a markdown table. */
export function profileMarkdown(dir: string, rows = 15): string {
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.cpuprofile'))
    .map((f) => `${dir}/${f}`)
    .sort((a, b) => statSync(b).size - statSync(a).size)
  if (!files[0]) return '(no profile was written)'
  return table(
    ['self %', 'incl. %', 'function'],
    summarizeCpuProfile(files[0], rows).map((r) => [r.selfPercent.toFixed(1), r.totalPercent.toFixed(1), `\`${r.name}\``]),
  )
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const [file, rows] = process.argv.slice(2)
  if (!file) throw new Error('usage: summarize-cpu-profile <file.cpuprofile> [rows]')
  for (const row of summarizeCpuProfile(file, Number(rows ?? 25))) console.log(`${row.selfPercent.toFixed(1).padStart(5)}% self ${row.totalPercent.toFixed(1).padStart(5)}% total  ${row.name}`)
}
