/** The committed ABI/bytecode modules are exactly what compiling contracts/ produces now: they cannot drift. */
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { describe, it } from 'node:test'
import { compileContracts, type ContractName } from '../../src/devnet/compile/compile-contracts.js'
import { artifactModules, renderArtifact } from '../../src/devnet/compile/render-artifacts.js'

describe('compiled artifacts', () => {
  it('match a fresh compile of contracts/ (run `npm run compile` after changing a contract)', () => {
    const compiled = compileContracts()
    for (const name of Object.keys(compiled) as ContractName[]) {
      const committed = readFileSync(artifactModules[name].path, 'utf8')
      assert.ok(committed === renderArtifact(name, compiled[name]), `${artifactModules[name].path} is stale: run npm run compile`)
    }
  })
})
