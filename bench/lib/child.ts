/**
 * Bench children: each runs in its own process (so a load generator gets the other core) and talks
 * to the harness over IPC: one `ready` message after start-up, then request/answer pairs by id.
 */
import { fork, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'

export interface BenchChild<Ready> {
  process: ChildProcess
  ready: Ready
  ask<T>(message: Record<string, unknown>): Promise<T>
  /** Resolves with the child's last message of type `done`, if it sent one. */
  exited: Promise<number | null>
  stop(): Promise<void>
}

interface Envelope {
  type: string
  id?: number
  [key: string]: unknown
}

/** Starts `script` (relative to bench/) under tsx and resolves once it sent `{ type: 'ready' }`. */
export async function startChild<Ready>(
  script: string,
  { env = {}, args = [], execArgv = [] }: { env?: Record<string, string>; args?: string[]; execArgv?: string[] } = {},
): Promise<BenchChild<Ready>> {
  const path = fileURLToPath(new URL(`../${script}`, import.meta.url))
  const child = fork(path, args, {
    execArgv: ['--import', 'tsx', ...execArgv],
    env: { ...process.env, ...env },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  })
  const pending = new Map<number, (value: unknown) => void>()
  let nextId = 1
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  const ready = await new Promise<Ready>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code} before it was ready`)))
    child.on('message', (message: Envelope) => {
      if (message.type === 'ready') resolve(message as unknown as Ready)
      else if (message.id !== undefined) {
        pending.get(message.id)?.(message)
        pending.delete(message.id)
      }
    })
  })
  return {
    process: child,
    ready,
    exited,
    ask: <T>(message: Record<string, unknown>) =>
      new Promise<T>((resolve) => {
        const id = nextId++
        pending.set(id, resolve as (value: unknown) => void)
        child.send({ ...message, id })
      }),
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
      await exited
    },
  }
}

/** In a child: answer the harness's requests with `handle`. */
export function serveParent(handle: (message: Envelope) => unknown | Promise<unknown>): void {
  // A harness that died must not leave its children holding ports and stores.
  process.once('disconnect', () => process.exit(0))
  process.on('message', async (message: Envelope) => {
    const answer = await handle(message)
    process.send?.({ ...(answer as object), type: 'answer', id: message.id })
  })
}
