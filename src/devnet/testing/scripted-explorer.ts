/**
 * A real explorer in this process that indexes a ScriptedChain (scripted-chain.ts), over a fresh data
 * directory: polls every 10 ms, query workers off, errors-only logs; `env` adds or overrides settings.
 */
import { rmSync } from 'node:fs'
import { explorerOptionsFromEnv } from '../../config/index.js'
import { startExplorer, type RunningExplorer } from '../../explorer/index.js'
import { tempDataDir } from './test-explorer.js'
import type { ScriptedChain } from './scripted-chain.js'

export interface ScriptedExplorer {
  explorer: RunningExplorer
  /** Stops the explorer and removes its data directory. */
  stop(): Promise<void>
}

export async function startScriptedExplorer(chain: ScriptedChain, env: Record<string, string> = {}): Promise<ScriptedExplorer> {
  const dataDir = tempDataDir()
  const options = explorerOptionsFromEnv({
    CHAIN_ID: '31337',
    RPC_URL: 'http://127.0.0.1:1',
    SETTLEMENT_CONTRACT: chain.contract,
    START_BLOCK: '1',
    EXPLORER_PORT: '0',
    POLL_INTERVAL_MS: '10',
    QUERY_WORKERS: '0',
    LOG_LEVEL: 'error',
    DATA_DIR: dataDir,
    ...env,
  })
  const explorer = await startExplorer(options, { source: chain.source() }).catch((error: unknown) => {
    rmSync(dataDir, { recursive: true, force: true })
    throw error
  })
  return {
    explorer,
    async stop() {
      await explorer.stop()
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}
