/**
 * Counts a process's (or one thread's) send syscalls with perf's tracepoints while work runs: the fan-out
 * figure that does not move with the machine's load. A socket's share of a block should cost one send;
 * deliveries per send say how close the server comes. Without perf (or permission) the count is undefined.
 */
import { spawn } from 'node:child_process'

/** Starts counting `sendto` calls of `pid` (or of thread `pid` with `thread`); the returned function stops and reads the count. */
export function countSends(pid: number, { thread = false } = {}): () => Promise<number | undefined> {
  const perf = spawn('perf', ['stat', '-x,', '-e', 'syscalls:sys_enter_sendto', thread ? '-t' : '-p', String(pid)], { stdio: ['ignore', 'ignore', 'pipe'] })
  let text = ''
  perf.stderr.on('data', (chunk: Buffer) => (text += chunk.toString()))
  const exited = new Promise<void>((resolve) => {
    perf.once('exit', () => resolve())
    perf.once('error', () => resolve())
  })
  return async () => {
    // perf stat prints its counts when interrupted.
    perf.kill('SIGINT')
    await exited
    const count = Number(text.split('\n').find((line) => line.includes('sendto'))?.split(',')[0])
    return Number.isFinite(count) ? count : undefined
  }
}
