/**
 * The shell of every script: `--help` prints the usage, and any failure (a missing or malformed
 * setting, an unreachable node) ends the process with one clear line rather than a stack trace.
 */
import { parseArgs, type ParseArgsConfig } from 'node:util'

type Options = NonNullable<ParseArgsConfig['options']>

export interface CliSpec<options extends Options> {
  name: string
  usage: string
  options: options
  /** Positional arguments (admin subcommands) are allowed. */
  allowPositionals?: boolean
}

export function runCli<const options extends Options>(
  spec: CliSpec<options>,
  main: (args: { values: ReturnType<typeof parseArgs<{ options: options; allowPositionals: true }>>['values']; positionals: string[] }) => Promise<void>,
): void {
  let parsed
  try {
    parsed = parseArgs({
      options: { ...spec.options, help: { type: 'boolean', short: 'h' } },
      allowPositionals: spec.allowPositionals ?? false,
    })
  } catch (error) {
    fail(spec.name, (error as Error).message)
  }
  if ((parsed.values as { help?: boolean }).help) {
    console.log(spec.usage.trim())
    process.exit(0)
  }
  main({ values: parsed.values as never, positionals: parsed.positionals }).catch((error: unknown) =>
    fail(spec.name, error instanceof Error ? firstLine(error) : String(error)),
  )
}

function firstLine(error: Error): string {
  // viem errors carry a short message first and pages of details after it.
  const short = (error as { shortMessage?: string }).shortMessage ?? error.message
  return short.split('\n')[0] ?? short
}

function fail(name: string, message: string): never {
  console.error(`${name}: ${message}`)
  process.exit(1)
}
