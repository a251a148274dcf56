/**
 * The repository's own directory, also when a test runs from the JavaScript copy in `.test-build/run-<pid>/`
 * (scripts/test-build.ts): tests that build the pieces or the image do so from the real tree, as a user does.
 */
import { fileURLToPath } from 'node:url'

export const repoRoot = fileURLToPath(new URL('../../..', import.meta.url)).replace(/\/\.test-build\/run-\d+\/$/, '/')
