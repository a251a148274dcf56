/**
 * A `perf` profile of one thread, kernel included, summarized as markdown. V8's profiler sees a uWS
 * publish or drain as one native call (or as "(idle)" when uWS drains in its loop hooks); when the
 * cost is in the kernel's socket sends, only perf can show it. On loopback the receiver's TCP work
 * (softirq delivery, waking the reader) runs in the sender's send call, so it is listed apart.
 * Without perf (or without permission) the summary says so and the work still runs.
 */
import { spawn, spawnSync } from 'node:child_process'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { table } from '../lib/format.js'

/** Kernel and library paths whose inclusive share says where a fan-out's time goes. */
const PATHS: [string, string][] = [
  ['__send', 'socket sends (uWS → kernel), inclusive'],
  ['net_rx_action', '  of which loopback receive processing for the reader (softirq in the sender)'],
  ['sock_def_readable', '  of which waking the reader'],
]

function report(file: string, args: string[]): string {
  return spawnSync('perf', ['report', '-i', file, '--stdio', '-g', 'none', ...args], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }).stdout ?? ''
}

const shares = (text: string) => [...text.matchAll(/^\s+([\d.]+)%\s+(?:[\d.]+%\s+)?(?:\[[.k]\]\s+)?(.+?)\s*$/gm)].map((m) => ({ percent: Number(m[1]), name: m[2]! }))

function summarize(file: string): string {
  const byDso = shares(report(file, ['--no-children', '--sort', 'dso'])).slice(0, 6)
  const bySymbol = shares(report(file, ['--children', '--sort', 'sym']))
  const paths = PATHS.map(([symbol, what]) => [what, `${(bySymbol.find((s) => s.name === symbol)?.percent ?? 0).toFixed(1)} %`])
  return `${table(['share of samples (self)', 'where'], byDso.map((d) => [`${d.percent.toFixed(1)} %`, d.name]))}\n\n${table(['path', 'share of samples'], paths)}`
}

/** Runs `work` while perf samples thread `tid` (call graphs, 999 Hz); returns its result and the summary. */
export async function perfThread<T>(tid: number, dir: string, work: () => Promise<T>): Promise<{ result: T; markdown: string }> {
  mkdirSync(dir, { recursive: true })
  const file = join(dir, 'main-thread.perf.data')
  const perf = spawn('perf', ['record', '-q', '-F', '999', '-g', '-t', String(tid), '-o', file], { stdio: ['ignore', 'ignore', 'pipe'] })
  let errors = ''
  perf.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()))
  // perf ends a record on SIGINT by raising it again: that exit is its normal one.
  const exited = new Promise<number | null>((resolve) => {
    perf.once('error', () => resolve(-1))
    perf.once('exit', (code, signal) => resolve(signal === 'SIGINT' ? 0 : code))
  })
  const result = await work()
  perf.kill('SIGINT')
  const code = await exited
  if (code !== 0) return { result, markdown: `(no perf profile: perf ${code === -1 ? 'is not on PATH' : `exited with ${code}: ${errors.trim().split('\n')[0]}`})` }
  return { result, markdown: summarize(file) }
}
