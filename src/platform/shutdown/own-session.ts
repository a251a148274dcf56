/**
 * A terminal's Ctrl-C goes to its whole foreground process group: to this command and to the servers it
 * started (anvil, PostgreSQL), which then die before the pieces using them have stopped, and every piece
 * logs the loss. So a command that starts servers runs itself again in a session of its own, out of the
 * terminal's group: Ctrl-C then reaches only the parent, which hands SIGINT/SIGTERM to the child, and the
 * child stops its pieces in order and its servers last. The child ends itself if the parent goes away.
 */
import { spawn } from 'node:child_process'

const CHILD_MARK = 'SETTLEMENT_OWN_SESSION'
const SAME_SIGNAL_MS = 300

/**
 * In the parent: starts the child and never resolves (the parent exits with the child's code). In the
 * child: resolves at once, and turns the loss of the parent into a SIGTERM of its own.
 */
export function runInOwnSession(): Promise<void> {
  if (process.env[CHILD_MARK] === '1') {
    process.once('disconnect', () => process.kill(process.pid, 'SIGTERM'))
    return Promise.resolve()
  }
  const child = spawn(process.execPath, [...process.execArgv, ...process.argv.slice(1)], {
    detached: true,
    stdio: ['inherit', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, [CHILD_MARK]: '1' },
  })
  // One Ctrl-C can arrive twice (from the terminal and relayed by tsx or npm): passed on once, so that
  // the child does not take it for the second Ctrl-C that means "exit now".
  let lastForwarded = 0
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (Date.now() - lastForwarded < SAME_SIGNAL_MS) return
      lastForwarded = Date.now()
      child.kill(signal)
    })
  }
  child.on('exit', (code, signal) => process.exit(code ?? (signal === 'SIGINT' ? 130 : 1)))
  return new Promise(() => {})
}
