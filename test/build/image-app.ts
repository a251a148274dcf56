/**
 * The container images, laid out on a machine without a container engine: what the Dockerfile says of
 * each target (its environment, command, health check, user, volume and stop signal, with those of the
 * stage it is built on, read from the Dockerfile itself), and each piece's `/app` as the build stage's own
 * step makes it (`scripts/image-steps.sh build`): the runtime tree of that piece (its dist/ files and the
 * packages it loads, copied from the project's install as the build stage copies them from its `npm ci`)
 * plus `scripts/image-steps.sh`, which the runtime stage copies.
 *
 * The trees live in the system temp directory, so that nothing above them holds a `node_modules` to fall
 * back on: a piece that loaded a package its tree lacks fails here as it would in its image. Pieces run
 * with the image's environment plus what a `docker run -e` would add, nothing inherited but PATH;
 * `tini`, the images' PID 1, is left out: signals go straight to node, which must handle them.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { repoRoot } from '../../src/devnet/testing/index.js'

export const root = repoRoot
const STEPS = 'scripts/image-steps.sh'

export interface ImageSpec {
  /** Arguments of each `RUN scripts/image-steps.sh …` in the build stage, then in the target's stages. */
  buildSteps: string[][]
  runtimeSteps: string[][]
  /** The runtime tree the target copies from the build stage (`/app/runtime/<piece>` → `<piece>`). */
  tree: string
  env: Record<string, string>
  entrypoint: string[]
  cmd: string[]
  /** Empty for `HEALTHCHECK NONE`. */
  healthcheck: string[]
  user: string
  volumes: string[]
  stopSignal: string
  exposed: string[]
}

interface Stage {
  name: string
  from: string
  lines: string[]
}

/** The stages in order, continuation lines joined, comments dropped. */
export function readStages(path = join(root, 'Dockerfile')): Stage[] {
  const lines = readFileSync(path, 'utf8')
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
  const result: Stage[] = []
  for (const line of lines) {
    const from = /^FROM\s+(\S+)(?:\s+AS\s+(\S+))?/i.exec(line)
    if (from) result.push({ from: from[1]!, name: from[2] ?? '', lines: [] })
    else result.at(-1)?.lines.push(line)
  }
  return result
}

const argument = (instruction: string) => instruction.replace(/^\S+\s+/, '')

function execForm(text: string): string[] {
  const parsed = JSON.parse(text) as unknown
  if (!Array.isArray(parsed) || !parsed.every((part) => typeof part === 'string')) throw new Error(`not an exec-form array: ${text}`)
  return parsed
}

function stepsOf(lines: string[]): string[][] {
  return lines.filter((line) => /^RUN\s/i.test(line) && argument(line).startsWith(STEPS)).map((line) => argument(line).split(/\s+/).slice(1))
}

/** The targets built on the runtime stage, the default (last) one last. */
export function imageTargets(): string[] {
  const stages = readStages()
  const runtimes = new Set(stages.filter((stage) => stage.from.startsWith('node:')).map((stage) => stage.name))
  return stages.filter((stage) => runtimes.has(stage.from)).map((stage) => stage.name)
}

export function readImageSpec(target = imageTargets().at(-1)!): ImageSpec {
  const stages = readStages()
  const build = stages.find((stage) => stage.name === 'build')
  const chain: Stage[] = []
  for (let stage = stages.find((s) => s.name === target); stage; stage = stages.find((s) => s.name === stage!.from)) chain.unshift(stage)
  if (!build || chain.length === 0) throw new Error(`the Dockerfile should have a build stage and a target "${target}"`)
  const lines = chain.flatMap((stage) => stage.lines)
  const last = (name: string) => lines.filter((line) => line.toUpperCase().startsWith(`${name} `)).at(-1)
  const env: Record<string, string> = {}
  for (const line of lines.filter((l) => /^ENV\s/i.test(l))) {
    for (const [, key, value] of argument(line).matchAll(/(\w+)=("[^"]*"|\S+)/g)) env[key!] = value!.replace(/^"|"$/g, '')
  }
  const healthcheck = last('HEALTHCHECK') ?? 'HEALTHCHECK NONE'
  const copied = lines.map((line) => /^COPY\s+--from=build\s+\/app\/runtime\/(\S+)\s/i.exec(line)?.[1]).filter(Boolean)
  return {
    buildSteps: stepsOf(build.lines),
    runtimeSteps: stepsOf(lines),
    tree: copied.at(-1) ?? '',
    env,
    entrypoint: execForm(argument(last('ENTRYPOINT') ?? 'ENTRYPOINT []')),
    cmd: execForm(argument(last('CMD') ?? 'CMD []')),
    healthcheck: /\sNONE$/i.test(healthcheck) ? [] : execForm(healthcheck.slice(healthcheck.indexOf(' CMD ') + 5)),
    user: argument(last('USER') ?? 'USER root'),
    volumes: execForm(argument(last('VOLUME') ?? 'VOLUME []')),
    stopSignal: argument(last('STOPSIGNAL') ?? 'STOPSIGNAL SIGTERM'),
    exposed: lines.filter((l) => /^EXPOSE\s/i.test(l)).flatMap((l) => argument(l).split(/\s+/)),
  }
}

export interface ImageApp {
  /** Holds dist/ and runtime/<piece>/. */
  dir: string
  /** The default target's spec. */
  spec: ImageSpec
  /** The `/app` of `target`'s image. */
  appDir(target?: string): string
  /** The container's command for `target` (the default target when absent), its CMD unless `args` are given, without the init process. */
  command(target?: string, args?: string[]): string[]
  /** `docker run -e …`: the target's environment with `env` on top. */
  environment(env: Record<string, string>, target?: string): Record<string, string>
  start(env: Record<string, string>, target?: string, args?: string[]): ChildProcess
  /** The target's HEALTHCHECK command's exit code. */
  healthcheck(env: Record<string, string>, target?: string): number
  remove(): void
}

/** Builds dist/ and the runtime trees of `targets` (default every target but the demo, whose tree holds anvil and PostgreSQL) with the image's build step. */
export function prepareImageApp(targets = imageTargets().filter((target) => target !== 'demo')): ImageApp {
  const spec = readImageSpec()
  const specs = new Map(targets.map((target) => [target, readImageSpec(target)]))
  const dir = mkdtempSync(join(tmpdir(), 'explorer-image-'))
  try {
    const build = spec.buildSteps.find((step) => step[0] === 'build')
    if (!build) throw new Error(`the Dockerfile's build stage runs no "${STEPS} build"`)
    const env = { ...process.env, DIST_DIR: join(dir, 'dist'), RUNTIME_DIR: join(dir, 'runtime'), RUNTIME_PIECES: [...specs.values()].map((s) => s.tree).join(',') }
    const result = spawnSync(join(root, STEPS), build, { cwd: root, env, encoding: 'utf8' })
    if (result.status !== 0) throw new Error(`${STEPS} ${build.join(' ')} failed:\n${result.stdout}${result.stderr}`)
    for (const { tree } of specs.values()) {
      mkdirSync(join(dir, 'runtime', tree, 'scripts'), { recursive: true })
      cpSync(join(root, STEPS), join(dir, 'runtime', tree, STEPS))
    }
  } catch (error) {
    rmSync(dir, { recursive: true, force: true })
    throw error
  }

  const specOf = (target = imageTargets().at(-1)!) => {
    const found = specs.get(target)
    if (!found) throw new Error(`no runtime tree prepared for target "${target}"`)
    return found
  }
  const appDir = (target?: string) => join(dir, 'runtime', specOf(target).tree)
  const environment = (env: Record<string, string>, target?: string) => ({ PATH: process.env.PATH ?? '/usr/bin:/bin', ...specOf(target).env, ...env })
  const command = (target?: string, args?: string[]) => {
    const { entrypoint, cmd } = specOf(target)
    const init = entrypoint[0] === 'tini' ? entrypoint.slice(entrypoint.indexOf('--') + 1) : entrypoint
    return [...init, ...(args ?? cmd)]
  }
  return {
    dir,
    spec,
    appDir,
    command,
    environment,
    start(env, target, args) {
      const [file, ...rest] = command(target, args)
      return spawn(file!, rest, { cwd: appDir(target), env: environment(env, target), stdio: ['ignore', 'pipe', 'pipe'] })
    },
    healthcheck(env, target) {
      const [file, ...args] = specOf(target).healthcheck
      if (!file) throw new Error(`target ${target} has no health check`)
      return spawnSync(file, args, { cwd: appDir(target), env: environment(env, target) }).status ?? -1
    },
    remove: () => rmSync(dir, { recursive: true, force: true }),
  }
}

/** A port free at the time of asking (the health check reads the port from the environment, so 0 will not do). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })
}

/** Collects a child's output lines, and resolves once one of them matches. */
export function watchOutput(child: ChildProcess): { lines: string[]; waitFor(pattern: RegExp): Promise<string> } {
  const lines: string[] = []
  const waiting = new Set<{ pattern: RegExp; resolve(line: string): void }>()
  // A chunk may end inside a line: its tail waits for the rest, per stream.
  const partial = new Map<unknown, string>()
  const take = (stream: unknown) => (chunk: Buffer) => {
    const text = (partial.get(stream) ?? '') + chunk.toString()
    const end = text.lastIndexOf('\n') + 1
    partial.set(stream, text.slice(end))
    for (const line of text.slice(0, end).split('\n').filter(Boolean)) {
      lines.push(line)
      for (const waiter of waiting) {
        if (waiter.pattern.test(line)) {
          waiting.delete(waiter)
          waiter.resolve(line)
        }
      }
    }
  }
  child.stdout?.on('data', take(child.stdout))
  child.stderr?.on('data', take(child.stderr))
  return {
    lines,
    waitFor: (pattern) => {
      const found = lines.find((line) => pattern.test(line))
      if (found) return Promise.resolve(found)
      return new Promise((resolve, reject) => {
        waiting.add({ pattern, resolve })
        child.once('exit', (code, signal) => reject(new Error(`exited (${code ?? signal}) before printing ${pattern}:\n${lines.join('\n')}`)))
      })
    },
  }
}

/** Resolves with how the child ended. */
export const exited = (child: ChildProcess) =>
  new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve({ code: child.exitCode, signal: child.signalCode })
    else child.once('exit', (code, signal) => resolve({ code, signal }))
  })
