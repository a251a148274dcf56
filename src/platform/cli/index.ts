/**
 * The shell of every command: flags parsed and checked, `--help` printed, a failure in one line. Kept
 * light (no viem, no database driver), so that `--help` answers before a command loads its pieces.
 */
export * from './flags.js'
export * from './run-cli.js'
export * from './table.js'
