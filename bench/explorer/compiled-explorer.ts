/**
 * The explorer as production runs it: compiled by the build (`npm run build`, scripts/build/build-pieces.ts)
 * and started with plain `node` — so the restart figure shows the explorer's cost without tsx transpiling
 * TypeScript at every start.
 */
import { spawn } from 'node:child_process'
import { createServer } from 'node:net'
import { join, resolve } from 'node:path'
import { buildPieces } from '../../scripts/build/build-pieces.js'
import type { Hex } from '../../src/wire/index.js'
import { BENCH_CHAIN_ID } from '../data/bench-store.js'

/** Inside the repository, so that the bundles resolve their packages from its node_modules. */
const BUILD_DIR = resolve('.data/bench-build')

export async function bundleExplorer(): Promise<string> {
  await buildPieces(BUILD_DIR)
  return join(BUILD_DIR, 'explorer.js')
}

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })

/** Milliseconds from spawning the compiled explorer to its first 200 on `path`. */
export async function timeCompiledRestart(bundle: string, dataDir: string, contract: Hex, rpcUrl: string, path: string, queryWorkers: number): Promise<number> {
  const port = await freePort()
  const started = performance.now()
  const child = spawn(process.execPath, [bundle], {
    stdio: 'ignore',
    env: {
      ...process.env,
      CHAIN_ID: String(BENCH_CHAIN_ID),
      RPC_URL: rpcUrl,
      SETTLEMENT_CONTRACT: contract,
      DEPLOYMENT_FILE: '/nonexistent/deployment.json',
      DATA_DIR: dataDir,
      EXPLORER_PORT: String(port),
      QUERY_WORKERS: String(queryWorkers),
      LOG_LEVEL: 'error',
    },
  })
  try {
    for (;;) {
      const ok = await fetch(`http://127.0.0.1:${port}${path}`).then(
        async (r) => (await r.arrayBuffer(), r.status === 200),
        () => false,
      )
      if (ok) return performance.now() - started
      if (child.exitCode !== null) throw new Error(`the compiled explorer exited with ${child.exitCode}`)
      await new Promise((resolve) => setTimeout(resolve, 5))
    }
  } finally {
    child.kill('SIGTERM')
    await new Promise((resolve) => child.once('exit', resolve))
  }
}
