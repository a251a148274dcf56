/**
 * The container image, laid out on a machine without a container engine: what the Dockerfile says (its
 * runtime stage's environment, command, health check, user, volume and stop signal, read from the
 * Dockerfile itself), and an application directory shaped like the runtime stage's `/app`:
 *
 * - `dist/`, built by the build stage's own step (`scripts/image-steps.sh build`);
 * - `package.json`, `package-lock.json` and `scripts/image-steps.sh`, copied as the stage copies them;
 * - `node_modules/` holding exactly what `npm ci --omit=dev` installs — the lockfile's top-level
 *   packages not marked dev-only — as links into the project's install, so a compiled piece that needed
 *   a development package would fail here as it would in the image. (The two installs themselves need
 *   the registry and are not run.)
 *
 * It lives in the system temp directory, so that nothing above it holds a `node_modules` to fall back on.
 * Pieces run with the image's environment plus what a `docker run -e` would add, nothing inherited
 * but PATH; `tini`, the image's PID 1, is left out: signals go straight to node, which must handle them.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'

export const root = new URL('../../', import.meta.url).pathname
const STEPS = 'scripts/image-steps.sh'

export interface ImageSpec {
  /** Arguments of each `RUN scripts/image-steps.sh …` in the build stage, then the runtime stage. */
  buildSteps: string[][]
  runtimeSteps: string[][]
  env: Record<string, string>
  entrypoint: string[]
  cmd: string[]
  healthcheck: string[]
  user: string
  volumes: string[]
  stopSignal: string
  exposed: string[]
}

/** The instructions of each stage, continuation lines joined, comments dropped. */
function stages(dockerfile: string): string[][] {
  const lines = dockerfile
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
  const result: string[][] = []
  for (const line of lines) {
    if (/^FROM\s/i.test(line)) result.push([])
    result.at(-1)?.push(line)
  }
  return result
}

const argument = (instruction: string) => instruction.replace(/^\S+\s+/, '')

function execForm(text: string): string[] {
  const parsed = JSON.parse(text) as unknown
  if (!Array.isArray(parsed) || !parsed.every((part) => typeof part === 'string')) throw new Error(`not an exec-form array: ${text}`)
  return parsed
}

function stepsOf(stage: string[]): string[][] {
  return stage
    .filter((line) => /^RUN\s/i.test(line) && argument(line).startsWith(STEPS))
    .map((line) => argument(line).split(/\s+/).slice(1))
}

export function readImageSpec(path = join(root, 'Dockerfile')): ImageSpec {
  const [build, runtime] = stages(readFileSync(path, 'utf8'))
  if (!build || !runtime) throw new Error('the Dockerfile should have a build stage and a runtime stage')
  const last = (name: string) => runtime.filter((line) => line.toUpperCase().startsWith(`${name} `)).at(-1)
  const env: Record<string, string> = {}
  for (const line of runtime.filter((l) => /^ENV\s/i.test(l))) {
    for (const [, key, value] of argument(line).matchAll(/(\w+)=("[^"]*"|\S+)/g)) env[key!] = value!.replace(/^"|"$/g, '')
  }
  const healthcheck = last('HEALTHCHECK') ?? ''
  return {
    buildSteps: stepsOf(build),
    runtimeSteps: stepsOf(runtime),
    env,
    entrypoint: execForm(argument(last('ENTRYPOINT') ?? 'ENTRYPOINT []')),
    cmd: execForm(argument(last('CMD') ?? 'CMD []')),
    healthcheck: execForm(healthcheck.slice(healthcheck.indexOf(' CMD ') + 5)),
    user: argument(last('USER') ?? 'USER root'),
    volumes: execForm(argument(last('VOLUME') ?? 'VOLUME []')),
    stopSignal: argument(last('STOPSIGNAL') ?? 'STOPSIGNAL SIGTERM'),
    exposed: runtime.filter((l) => /^EXPOSE\s/i.test(l)).flatMap((l) => argument(l).split(/\s+/)),
  }
}

/** The packages `npm ci --omit=dev` puts at the top of node_modules. */
export function productionPackages(): string[] {
  const lock = JSON.parse(readFileSync(join(root, 'package-lock.json'), 'utf8')) as { packages: Record<string, { dev?: boolean; link?: boolean }> }
  return Object.entries(lock.packages)
    .filter(([path, entry]) => /^node_modules\/(@[^/]+\/)?[^/]+$/.test(path) && !entry.dev)
    .map(([path]) => path.slice('node_modules/'.length))
}

export interface ImageApp {
  dir: string
  spec: ImageSpec
  /** The container's command for `piece` (the image's CMD when absent), without the init process. */
  command(piece?: string): string[]
  /** `docker run -e …`: the image's environment with `env` on top. */
  environment(env: Record<string, string>): Record<string, string>
  start(env: Record<string, string>, piece?: string): ChildProcess
  /** The HEALTHCHECK command's exit code. */
  healthcheck(env: Record<string, string>): number
  remove(): void
}

export function prepareImageApp(): ImageApp {
  const spec = readImageSpec()
  const dir = mkdtempSync(join(tmpdir(), 'explorer-image-'))
  try {
    for (const file of ['package.json', 'package-lock.json', STEPS]) {
      mkdirSync(dirname(join(dir, file)), { recursive: true })
      cpSync(join(root, file), join(dir, file))
    }
    for (const name of productionPackages()) {
      mkdirSync(dirname(join(dir, 'node_modules', name)), { recursive: true })
      symlinkSync(join(root, 'node_modules', name), join(dir, 'node_modules', name), 'dir')
    }
    const build = spec.buildSteps.find((step) => step[0] === 'build')
    if (!build) throw new Error(`the Dockerfile's build stage runs no "${STEPS} build"`)
    const result = spawnSync(join(root, STEPS), build, { cwd: root, env: { ...process.env, DIST_DIR: join(dir, 'dist') }, encoding: 'utf8' })
    if (result.status !== 0) throw new Error(`${STEPS} ${build.join(' ')} failed:\n${result.stdout}${result.stderr}`)
  } catch (error) {
    rmSync(dir, { recursive: true, force: true })
    throw error
  }

  const environment = (env: Record<string, string>) => ({ PATH: process.env.PATH ?? '/usr/bin:/bin', ...spec.env, ...env })
  const command = (piece?: string) => {
    const init = spec.entrypoint[0] === 'tini' ? spec.entrypoint.slice(spec.entrypoint.indexOf('--') + 1) : spec.entrypoint
    return [...init, ...(piece === undefined ? spec.cmd : [piece])]
  }
  return {
    dir,
    spec,
    command,
    environment,
    start(env, piece) {
      const [file, ...args] = command(piece)
      return spawn(file!, args, { cwd: dir, env: environment(env), stdio: ['ignore', 'pipe', 'pipe'] })
    },
    healthcheck(env) {
      const [file, ...args] = spec.healthcheck
      return spawnSync(file!, args, { cwd: dir, env: environment(env) }).status ?? -1
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
  const take = (chunk: Buffer) => {
    for (const line of chunk.toString().split('\n').filter(Boolean)) {
      lines.push(line)
      for (const waiter of waiting) {
        if (waiter.pattern.test(line)) {
          waiting.delete(waiter)
          waiter.resolve(line)
        }
      }
    }
  }
  child.stdout?.on('data', take)
  child.stderr?.on('data', take)
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
