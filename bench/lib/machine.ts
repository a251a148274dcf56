/** What the figures were measured on: core count, memory, CPU, load, versions and the commit. */
import { execSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { cpus, loadavg, totalmem } from 'node:os'

export interface Machine {
  date: string
  nproc: number
  cpu: string
  memoryGb: number
  node: string
  commit: string
  /** Files under src/ that differ from the commit: the tree measured is not exactly the commit. */
  uncommitted: number
}

export function describeMachine(): Machine {
  let commit = 'unknown'
  let uncommitted = 0
  try {
    commit = execSync('git rev-parse --short HEAD', { stdio: ['ignore', 'pipe', 'ignore'] }).toString().trim()
    uncommitted = execSync('git status --porcelain -- src', { stdio: ['ignore', 'pipe', 'ignore'] }).toString().split('\n').filter(Boolean).length
  } catch {
    // not a git checkout: leave it unknown
  }
  return {
    date: new Date().toISOString(),
    nproc: cpus().length,
    cpu: cpus()[0]?.model ?? 'unknown',
    memoryGb: Math.round(totalmem() / 1024 ** 3),
    node: process.version,
    commit,
    uncommitted,
  }
}

/** The 1-minute load average: other work on the machine, recorded beside each figure. */
export const load1 = () => Math.round(loadavg()[0]! * 100) / 100

/** Resident memory this process allocated itself (RSS less mapped file pages such as LMDB's), in bytes. */
export function rssAnonBytes(): number {
  return Number(/RssAnon:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))![1]) * 1024
}
