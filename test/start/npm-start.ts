/**
 * `npm start` as a user runs it, for the tests that need the whole stack as shipped: in a fresh working
 * directory of its own, every port free (anvil's chosen by the devnet, the others through their port
 * settings), in a process group of its own as a terminal gives a foreground command. The addresses are
 * read from what it prints, as a user reads them.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { chmodSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { findFreePort } from '../../src/platform/net/index.js'

const root = fileURLToPath(new URL('../..', import.meta.url))

const PORT_SETTINGS = ['EXPLORER_PORT', 'DATA_SERVICE_PORT', 'GATEWAY_PORT', 'CA_PORT', 'CHECKOUT_PORT', 'WIDGET_PORT', 'STORE_PORT']

/** What `npm start` prints, line by line: the address each piece listens on. */
export const PRINTED = {
  devnet: /devnet: +(http:\/\/\S+),/,
  explorer: /explorer: +(http:\/\/\S+)\/ \(the web page/,
  dataService: /data service: (http:\/\/\S+)\/config/,
  checkout: /checkout: +(https:\/\/\S+)\/api\/v1\/charges/,
  store: /open (http:\/\/\S+)/,
} as const

export interface NpmStart {
  child: ChildProcess
  /** Its working directory: `.data/` is under it. */
  cwd: string
  output(): string
  exited: Promise<[number | null, NodeJS.Signals | null]>
  /** The printed address of a piece, once printed. */
  printed(piece: keyof typeof PRINTED): string | undefined
  /** SIGKILL to the group when still running, then the working directory removed. */
  kill(): Promise<void>
}

export async function spawnNpmStart(env: Record<string, string> = {}): Promise<NpmStart> {
  const cwd = mkdtempSync(join(tmpdir(), 'npm-start-'))
  // The embedded PostgreSQL runs as the postgres user, who must be able to reach .data/postgres.
  chmodSync(cwd, 0o755)
  const ports = Object.fromEntries(await Promise.all(PORT_SETTINGS.map(async (name) => [name, String(await findFreePort())])))
  // detached: a process group of its own, as a terminal gives the command it runs in the foreground.
  const child = spawn(join(root, 'node_modules/.bin/tsx'), [join(root, 'scripts/start.ts'), '--port', '0'], {
    cwd,
    detached: true,
    env: { ...process.env, ...ports, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()))
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()))
  const exited = once(child, 'exit') as Promise<[number | null, NodeJS.Signals | null]>
  return {
    child,
    cwd,
    output: () => output,
    exited,
    printed: (piece) => PRINTED[piece].exec(output)?.[1],
    async kill() {
      if (child.exitCode === null && child.signalCode === null) {
        process.kill(-child.pid!, 'SIGKILL')
        await exited
      }
      rmSync(cwd, { recursive: true, force: true })
    },
  }
}
