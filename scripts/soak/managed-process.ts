/**
 * One piece of the stack as its own process (`node --import tsx scripts/<name>.ts`), so the soak can
 * `kill -9` it and start it again with the same settings (the explorer on the same data directory and
 * port). Its stderr goes to a log file; its RSS is read from /proc while it runs.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { createWriteStream, readFileSync, type WriteStream } from 'node:fs'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'

export interface ManagedProcessOptions {
  name: string
  script: string
  env: Record<string, string>
  logDir: string
  /** Resolves true once the process serves; polled after each start. */
  isUp: (process: ManagedProcess) => Promise<boolean>
  startTimeoutMs?: number
  /** Texts whose occurrences in its stderr are counted over all its lives (`counts`). */
  count?: string[]
}

export class ManagedProcess {
  readonly name: string
  #child: ChildProcess | undefined
  #log: WriteStream
  #lines: string[] = []
  starts = 0
  kills = 0
  readonly counts: Record<string, number> = {}

  constructor(private readonly options: ManagedProcessOptions) {
    this.name = options.name
    this.#log = createWriteStream(join(options.logDir, `${options.name}.log`), { flags: 'a' })
  }

  get pid(): number | undefined {
    return this.running ? this.#child?.pid : undefined
  }

  get running(): boolean {
    return this.#child !== undefined && this.#child.exitCode === null && this.#child.signalCode === null
  }

  /** Whether a line of its stderr since the last start contains `text`. */
  logged(text: string): boolean {
    return this.#lines.some((line) => line.includes(text))
  }

  async start(): Promise<void> {
    if (this.running) throw new Error(`${this.name} is already running`)
    this.#lines = []
    const child = spawn(process.execPath, ['--import', 'tsx', this.options.script], {
      env: { ...process.env, ...this.options.env },
      stdio: ['ignore', 'ignore', 'pipe'],
    })
    this.#child = child
    this.starts++
    this.#log.write(`--- start ${this.starts} pid ${child.pid} at ${new Date().toISOString()}\n`)
    let pending = ''
    child.stderr!.on('data', (chunk: Buffer) => {
      this.#log.write(chunk)
      pending += chunk.toString()
      const lines = pending.split('\n')
      pending = lines.pop()!
      for (const line of lines) for (const text of this.options.count ?? []) if (line.includes(text)) this.counts[text] = (this.counts[text] ?? 0) + 1
      // Only the recent lines matter (readiness markers); the log file keeps everything.
      this.#lines.push(...lines)
      if (this.#lines.length > 200) this.#lines.splice(0, this.#lines.length - 200)
    })
    const deadline = Date.now() + (this.options.startTimeoutMs ?? 60_000)
    while (!(await this.options.isUp(this).catch(() => false))) {
      if (!this.running) throw new Error(`${this.name} exited (${child.exitCode ?? child.signalCode}) while starting; see ${this.name}.log`)
      if (Date.now() > deadline) throw new Error(`${this.name} did not come up in time; see ${this.name}.log`)
      await sleep(100)
    }
  }

  /** `kill -9`, and waits for the exit. */
  async kill9(): Promise<void> {
    const child = this.#child
    if (!child || !this.running) return
    this.kills++
    this.#log.write(`--- kill -9 pid ${child.pid} at ${new Date().toISOString()}\n`)
    const exited = once(child, 'exit')
    child.kill('SIGKILL')
    await exited
  }

  /** SIGTERM, then SIGKILL after `graceMs`. */
  async stop(graceMs = 5_000): Promise<void> {
    const child = this.#child
    if (child && this.running) {
      const exited = once(child, 'exit')
      child.kill('SIGTERM')
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs)
      await exited
      clearTimeout(timer)
    }
    await new Promise<void>((resolve) => this.#log.end(resolve))
  }

  /** Resident set size in bytes, from /proc (Linux), or undefined when it is not running. */
  rss(): number | undefined {
    return this.pid === undefined ? undefined : rssOfPid(this.pid)
  }
}

export function rssOfPid(pid: number): number | undefined {
  try {
    const match = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    return match ? Number(match[1]) * 1024 : undefined
  } catch {
    return undefined
  }
}
