/**
 * The SDK as a consumer gets it: `tsconfig.sdk.json` emits JavaScript and declarations at the paths the
 * package's `exports["./sdk"]` names, the emitted code loads and works, and no emitted file imports a
 * Node module or undici statically (the browser path). The one package it may import is viem, which the
 * wallet client signs with and which runs in browsers.
 */
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs'
import { join, relative } from 'node:path'
import { pathToFileURL } from 'node:url'
import { after, test } from 'node:test'

const root = new URL('../../', import.meta.url).pathname
// Inside the project, so that the emitted code resolves viem from the project's node_modules.
mkdirSync(join(root, '.data'), { recursive: true })
const outDir = mkdtempSync(join(root, '.data', 'sdk-build-'))

after(() => rmSync(outDir, { recursive: true, force: true }))

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? filesUnder(join(dir, entry.name)) : [join(dir, entry.name)],
  )
}

test('the SDK builds to the paths its package export names, and loads from there', async () => {
  const build = spawnSync(process.execPath, [join(root, 'node_modules/typescript/bin/tsc'), '-p', join(root, 'tsconfig.sdk.json'), '--outDir', outDir], {
    encoding: 'utf8',
  })
  assert.equal(build.status, 0, build.stdout + build.stderr)

  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { exports: Record<string, { types: string; default: string }> }
  const entry = pkg.exports['./sdk']!
  // The export paths are relative to the package root, with `dist` the config's outDir.
  const built = (path: string) => join(outDir, relative('dist', path))
  assert.ok(existsSync(built(entry.types)), `${entry.types} was not emitted`)
  assert.ok(existsSync(built(entry.default)), `${entry.default} was not emitted`)
  assert.match(readFileSync(built(entry.types), 'utf8'), /ExplorerClient/)

  const sdk = (await import(pathToFileURL(built(entry.default)).href)) as typeof import('../../src/sdk/index.js')
  const client = new sdk.ExplorerClient({ baseUrl: 'https://explorer.example/api' })
  assert.equal(client.wsUrl, 'wss://explorer.example/api/stream')
  assert.ok(new sdk.ExplorerTimeoutError(5, 'x') instanceof sdk.ExplorerError)
  assert.equal(typeof sdk.WalletClient, 'function')
})

test('the SDK is built from sdk/ and wire/ alone, and no emitted module imports a Node built-in or undici statically', () => {
  const modules = filesUnder(outDir).filter((file) => file.endsWith('.js'))
  assert.ok(modules.length > 5)
  assert.deepEqual([...new Set(modules.map((file) => relative(outDir, file).split('/')[0]))].sort(), ['sdk', 'wire'])
  for (const file of modules) {
    const staticImports = [...readFileSync(file, 'utf8').matchAll(/^\s*(?:import|export)\b[^'"]*?from\s*['"]([^'"]+)['"]/gm)].map((m) => m[1]!)
    for (const specifier of staticImports) {
      assert.ok(specifier.startsWith('.') || specifier === 'viem' || specifier.startsWith('viem/'), `${relative(outDir, file)} imports ${specifier}`)
    }
  }
})
