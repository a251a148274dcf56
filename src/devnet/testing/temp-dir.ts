/**
 * Temporary directories for a test file, removed when its process exits (passing, failing or ended by the
 * runner's forceExit), so that runs leave nothing behind in the system temp dir. A test that removes its
 * own directory earlier loses nothing.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const made: string[] = []
process.once('exit', () => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true })
})

/** A new directory `<tmp>/<prefix>XXXXXX`. */
export function tempDir(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  made.push(dir)
  return dir
}
