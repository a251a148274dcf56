/**
 * A data directory written by an older explorer (store layout 1, before `idx:selfPayment`) is refused
 * at start-up with a message naming it, rather than served with `address` totals that would count its
 * self-payments twice; the directory is left as it was.
 */
import assert from 'node:assert/strict'
import { rmSync } from 'node:fs'
import { test } from 'node:test'
import { explorerOptionsFromEnv } from '../../src/config/explorer-options.js'
import { startExplorer } from '../../src/explorer/start-explorer.js'
import { commitBatch } from '../../src/explorer/store/commit-batch.js'
import { readLayout } from '../../src/explorer/store/meta.js'
import { openStore } from '../../src/explorer/store/open-store.js'
import { tempDataDir, syntheticSteps } from '../../src/devnet/testing/index.js'

test('an explorer refuses a data directory holding settlements of an older store layout', async () => {
  const dataDir = tempDataDir()
  try {
    const old = openStore({ path: dataDir, noSync: true })
    for (const step of syntheticSteps(20)) await commitBatch(old, step)
    await old.meta.remove('layout')
    await old.close()

    const options = explorerOptionsFromEnv({
      SETTLEMENT_CONTRACT: `0x${'11'.repeat(20)}`,
      RPC_URL: 'http://127.0.0.1:9',
      DATA_DIR: dataDir,
      EXPLORER_PORT: '0',
      QUERY_WORKERS: '0',
      LOG_LEVEL: 'silent',
    })
    await assert.rejects(startExplorer(options), (error: Error) => error.message.includes(dataDir) && /store layout 1\b/.test(error.message))

    const after = openStore({ path: dataDir })
    assert.equal(readLayout(after), 1, 'the directory is left as it was')
    await after.close()
  } finally {
    rmSync(dataDir, { recursive: true, force: true })
  }
})
