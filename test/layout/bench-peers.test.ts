/**
 * Bench peers (bench/peers/) are other projects measured beside ours, never part of the product: each has
 * its own package.json and lock file, and nothing of them reaches the root's, so `npm ci` at the root
 * never installs them. Each check is shown failing on a made-up manifest so that it cannot pass everything.
 */
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { describe, test } from 'node:test'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('../..', import.meta.url))
const json = (path: string) => JSON.parse(readFileSync(`${root}${path}`, 'utf8')) as Record<string, unknown>

const PEER_PACKAGES = ['ponder', '@ponder/utils', '@electric-sql/pglite', 'node', 'envio', 'envio-linux-x64', 'pnpm']

/** The peer packages a root manifest or lock file names (as a dependency or an installed package). */
function peerPackagesIn(manifest: Record<string, unknown>, lock: Record<string, unknown>): string[] {
  const declared = ['dependencies', 'devDependencies', 'optionalDependencies', 'peerDependencies'].flatMap((k) => Object.keys((manifest[k] as object | undefined) ?? {}))
  const installed = Object.keys((lock.packages as object | undefined) ?? {}).map((path) => path.replace(/^.*node_modules\//, ''))
  return PEER_PACKAGES.filter((name) => declared.includes(name) || installed.includes(name))
}

describe('bench peers stay out of the product', () => {
  test('the root package.json and package-lock.json name no peer package', () => {
    assert.deepEqual(peerPackagesIn(json('package.json'), json('package-lock.json')), [])
  })

  test('the check sees a peer package in a manifest or a lock file', () => {
    assert.deepEqual(peerPackagesIn({ devDependencies: { ponder: '0.17.7' } }, {}), ['ponder'])
    assert.deepEqual(peerPackagesIn({}, { packages: { 'node_modules/@electric-sql/pglite': {} } }), ['@electric-sql/pglite'])
  })

  test('Ponder has its own pinned manifest and lock file, with its own Node', () => {
    const manifest = json('bench/peers/ponder/package.json') as { private?: boolean; dependencies: Record<string, string> }
    const lock = json('bench/peers/ponder/package-lock.json') as { packages: Record<string, { version?: string }> }
    assert.equal(manifest.private, true)
    assert.match(manifest.dependencies.ponder ?? '', /^\d+\.\d+\.\d+$/)
    assert.match(manifest.dependencies.node ?? '', /^22\./)
    assert.equal(lock.packages['node_modules/ponder']?.version, manifest.dependencies.ponder)
  })

  test('Envio has its own pinned CLI (with the pnpm its codegen runs) and a project on the same version', () => {
    const cli = json('bench/peers/envio/cli/package.json') as { private?: boolean; dependencies: Record<string, string> }
    const lock = json('bench/peers/envio/cli/package-lock.json') as { packages: Record<string, { version?: string }> }
    const project = json('bench/peers/envio/indexer/package.json') as { private?: boolean; dependencies: Record<string, string> }
    assert.equal(cli.private, true)
    assert.equal(project.private, true)
    for (const name of ['envio', 'pnpm']) {
      assert.match(cli.dependencies[name] ?? '', /^\d+\.\d+\.\d+$/)
      assert.equal(lock.packages[`node_modules/${name}`]?.version, cli.dependencies[name])
    }
    assert.equal(lock.packages['node_modules/envio-linux-x64']?.version, cli.dependencies.envio)
    assert.equal(project.dependencies.envio, cli.dependencies.envio)
  })
})
