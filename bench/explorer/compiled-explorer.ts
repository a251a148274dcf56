/**
 * The explorer as production would run it: `scripts/explorer.ts` bundled to one JavaScript file with
 * esbuild (tsx's own dependency), native modules left external, started with plain `node` — so the
 * restart figure shows the explorer's cost without tsx transpiling TypeScript at every start.
 * Query workers load TypeScript by path, so the bundle runs with QUERY_WORKERS=0.
 */
import { spawn } from 'node:child_process'
import { createServer } from 'node:net'
import { build } from 'esbuild'
import type { Hex } from '../../src/types/settlement.js'
import { BENCH_CHAIN_ID } from '../data/bench-store.js'

/** Two folders below the repository root, so `../../package.json` in the bundle still finds the version. */
const BUNDLE = '.data/bench-bundle/explorer.mjs'

export async function bundleExplorer(): Promise<string> {
  await build({
    entryPoints: ['scripts/explorer.ts'],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile: BUNDLE,
    external: ['lmdb', 'uWebSockets.js', 'msgpackr', 'piscina'],
    banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" },
    logLevel: 'error',
  })
  return BUNDLE
}

const freePort = () =>
  new Promise<number>((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number }
      server.close(() => resolve(port))
    })
  })

/** Milliseconds from spawning the bundled explorer to its first 200 on `path`. */
export async function timeCompiledRestart(bundle: string, dataDir: string, contract: Hex, rpcUrl: string, path: string): Promise<number> {
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
      QUERY_WORKERS: '0',
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
      if (child.exitCode !== null) throw new Error(`the bundled explorer exited with ${child.exitCode}`)
      await new Promise((resolve) => setTimeout(resolve, 5))
    }
  } finally {
    child.kill('SIGTERM')
    await new Promise((resolve) => child.once('exit', resolve))
  }
}
