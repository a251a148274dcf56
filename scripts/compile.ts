/**
 * `npm run compile`: compiles contracts/ with the bundled solc-js and writes the committed TypeScript
 * artifacts under src/chain/abi/ (runtime code never needs solc).
 */
import { writeFileSync } from 'node:fs'
import { parseArgs } from 'node:util'
import { compileContracts, type ContractName } from '../src/devnet/compile/index.js'
import { artifactModules, renderArtifact } from '../src/devnet/compile/index.js'

const { values } = parseArgs({ options: { help: { type: 'boolean', short: 'h' } } })
if (values.help) {
  console.log('usage: npm run compile\n\nCompiles contracts/*.sol (solc-js, offline) and rewrites src/chain/abi/*.ts.')
  process.exit(0)
}

const compiled = compileContracts()
for (const name of Object.keys(compiled) as ContractName[]) {
  const { path } = artifactModules[name]
  writeFileSync(path, renderArtifact(name, compiled[name]))
  console.log(`wrote ${path}`)
}
