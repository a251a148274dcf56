/**
 * Runs the cleanup once on Ctrl-C or SIGTERM, then says `stopped` and exits. A second Ctrl-C exits at
 * once, for a cleanup that hangs.
 */
export function onShutdown(cleanup: () => Promise<void>): void {
  let stopping = false
  const handler = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(130)
    stopping = true
    console.log(`\nstopping (${signal})…`)
    cleanup().then(
      () => {
        console.log('stopped')
        process.exit(0)
      },
      (error: unknown) => {
        console.error(`stop failed: ${String(error)}`)
        process.exit(1)
      },
    )
  }
  process.on('SIGINT', handler)
  process.on('SIGTERM', handler)
}
