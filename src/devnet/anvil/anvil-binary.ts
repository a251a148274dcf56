/**
 * Locates the anvil binary that `@foundry-rs/anvil` installs as a platform package. Spawning the binary
 * itself (rather than the node wrapper in node_modules/.bin) means killing the child really stops anvil.
 */
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { ConfigError } from '../../config/index.js'

const require = createRequire(import.meta.url)
const archNames: Record<string, string> = { x64: 'amd64', arm64: 'arm64' }

export function anvilBinaryPath(): string {
  const platformPackage = `@foundry-rs/anvil-${process.platform}-${archNames[process.arch] ?? process.arch}`
  try {
    const binary = join(dirname(require.resolve(`${platformPackage}/package.json`)), 'bin', 'anvil')
    if (existsSync(binary)) return binary
  } catch {
    // Not installed for this platform: fall back to the wrapper below.
  }
  const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..')
  const wrapper = join(repoRoot, 'node_modules', '.bin', 'anvil')
  if (existsSync(wrapper)) return wrapper
  throw new ConfigError(`anvil not found: install dependencies (npm install) so that ${platformPackage} is present`)
}
