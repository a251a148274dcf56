/**
 * Keeps every error the project throws in its one family (wire/base-error.ts): a plain `new Error(` in
 * `src/` carries no `retryable`, no details and no class to catch it by, and is not retried by
 * `isRetryable`. The files still allowed some, and how many, are named below with the reason. And an
 * error is logged whole (the logger writes its class, details, stack and causes, URLs redacted), never
 * as its message or string alone. Each check is shown failing on a made-up file so that it cannot rot
 * into one that passes everything.
 */
import assert from 'node:assert/strict'
import { readFileSync, readdirSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, test } from 'node:test'
import { repoRoot as root } from '../../src/devnet/testing/index.js'

/** Files that may still build plain errors, with how many: none now. */
const ALLOWED: Record<string, number> = {}

/** What the tests, benchmarks and soak share (src/devnet/testing/): test code, held to the rules of test/. */
const TEST_CODE = /^src\/devnet\/(testing|test-database)\//

const PLAIN_ERROR = /\bnew Error\(/g

/** One line per file whose plain errors are not allowed (or more than allowed). */
export function findPlainErrors(files: Record<string, string>): string[] {
  return Object.entries(files).flatMap(([file, text]) => {
    if (TEST_CODE.test(file)) return []
    const count = text.match(PLAIN_ERROR)?.length ?? 0
    const allowed = ALLOWED[file] ?? 0
    return count > allowed ? [`${file}: ${count} new Error( (${allowed} allowed): throw an error of the BaseError family`] : []
  })
}

/** A log field made of an error's message, stack or string: the class, details and causes are lost. */
const ERROR_AS_TEXT = /\berror: (?:\(error as Error\)\.message|error\.message|error\.stack|String\(error\)|error instanceof Error \? error\.)/

/** A line that logs (a logger's call, or the fields made for one). */
const LOG_LINE = /\.(?:debug|info|warn|error)\(|\breport\(|\bfields = /

/** One line per file that logs an error as text. */
export function findErrorsLoggedAsText(files: Record<string, string>): string[] {
  return Object.entries(files).flatMap(([file, text]) =>
    text.split('\n').flatMap((line, i) => (LOG_LINE.test(line) && ERROR_AS_TEXT.test(line) ? [`${file}:${i + 1}: log the error itself ({ error })`] : [])),
  )
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return sourceFiles(path)
    return name.endsWith('.ts') && !name.endsWith('.test.ts') ? [path] : []
  })
}

describe('error family', () => {
  test('no file of src/ builds a plain Error beyond the allow-list', () => {
    const files = Object.fromEntries(sourceFiles(join(root, 'src')).map((path) => [relative(root, path), readFileSync(path, 'utf8')]))
    assert.ok(Object.keys(files).length > 300, `only ${Object.keys(files).length} files read: the reader is broken`)
    assert.deepEqual(findPlainErrors(files), [])
  })

  test('no file of src/ logs an error as its message or string', () => {
    const files = Object.fromEntries(sourceFiles(join(root, 'src')).map((path) => [relative(root, path), readFileSync(path, 'utf8')]))
    assert.deepEqual(findErrorsLoggedAsText(files), [])
    assert.deepEqual(findErrorsLoggedAsText({ 'src/made-up.ts': "log.warn('x', { id })\nlog.warn('failed', { error: (error as Error).message })\nreturn { error: error.message }" }), [
      'src/made-up.ts:2: log the error itself ({ error })',
    ])
  })

  test('every allowed file exists and still needs its allowance', () => {
    const stale = Object.entries(ALLOWED).filter(([file, allowed]) => {
      const text = readFileSync(join(root, file), 'utf8')
      return (text.match(PLAIN_ERROR)?.length ?? 0) < allowed
    })
    assert.deepEqual(stale, [], 'lower the allowance (or drop the entry) of files that throw fewer plain errors')
  })

  test('a plain Error is refused, in test code only under src/devnet/testing', () => {
    assert.deepEqual(findPlainErrors({ 'src/wire/made-up.ts': "throw new Error('x')", 'src/wire/fine.ts': "throw new BaseError('x')" }), [
      'src/wire/made-up.ts: 1 new Error( (0 allowed): throw an error of the BaseError family',
    ])
    assert.deepEqual(findPlainErrors({ 'src/explorer/store/record.ts': 'new Error(a) new Error(b)', 'src/devnet/testing/fixture.ts': 'new Error(a)' }), [
      'src/explorer/store/record.ts: 2 new Error( (0 allowed): throw an error of the BaseError family',
    ])
  })
})
