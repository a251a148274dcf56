/**
 * Compiles `contracts/*.sol` with the solc-js compiler bundled in the `solc` npm package, so compiling
 * never needs the network. Only `scripts/compile.ts` and the artifact test use this; runtime code imports
 * the committed artifacts under `src/chain/abi/` instead.
 */
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Abi, Hex } from 'viem'
import { BaseError } from '../../errors/index.js'

const require = createRequire(import.meta.url)
const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..')

/** The contracts this project builds, by source file and contract name. */
export const contractSources = {
  SettlementContract: 'contracts/SettlementContract.sol',
  TestStablecoin: 'contracts/TestStablecoin.sol',
} as const

export type ContractName = keyof typeof contractSources

export interface CompiledContract {
  abi: Abi
  bytecode: Hex
}

/** Fixed settings: artifacts must be byte-identical from run to run and machine to machine. */
const settings = {
  optimizer: { enabled: true, runs: 200 },
  viaIR: true,
  // Cancun is the newest fork that every chain we target runs; anvil runs it too.
  evmVersion: 'cancun',
  metadata: { bytecodeHash: 'none', appendCBOR: false },
  outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
}

/** Resolves `@openzeppelin/...` imports from node_modules and everything else from the repo. */
function findImport(path: string): { contents: string } | { error: string } {
  try {
    const file = path.startsWith('@') ? require.resolve(path) : join(repoRoot, path)
    return { contents: readFileSync(file, 'utf8') }
  } catch {
    return { error: `import not found: ${path}` }
  }
}

interface SolcOutput {
  errors?: { severity: string; formattedMessage: string }[]
  contracts: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string } } }>>
}

/**
 * Compiles the named contracts (contract name → source path in the repo, or under node_modules); tests
 * pass their own mocks, and third-party contracts written for the legacy pipeline (the Safe) `viaIR: false`.
 */
export function compileContracts<name extends string = ContractName>(
  files: Record<name, string> = contractSources as Record<ContractName, string> as Record<name, string>,
  { viaIR = true }: { viaIR?: boolean } = {},
): Record<name, CompiledContract> {
  const solc = require('solc') as { compile(input: string, callbacks: object): string }
  const sources = Object.fromEntries(
    Object.values<string>(files).map((path) => [path, { content: readFileSync(join(repoRoot, path), 'utf8') }]),
  )
  const output = JSON.parse(
    solc.compile(JSON.stringify({ language: 'Solidity', sources, settings: { ...settings, viaIR } }), { import: findImport }),
  ) as SolcOutput
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error')
  if (errors.length > 0) throw new BaseError(`solc failed:\n${errors.map((e) => e.formattedMessage).join('\n')}`)

  const compiled = {} as Record<name, CompiledContract>
  for (const [name, path] of Object.entries<string>(files) as [name, string][]) {
    const contract = output.contracts[path]?.[name]
    if (!contract) throw new BaseError(`solc produced no output for ${name}`)
    compiled[name] = { abi: contract.abi, bytecode: `0x${contract.evm.bytecode.object}` }
  }
  return compiled
}
