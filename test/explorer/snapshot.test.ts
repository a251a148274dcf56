/**
 * Issue 40 part 1, replicas from snapshots, with real anvil and real explorers: `npm run explorer --
 * snapshot <dir>` copies the store of an explorer while it serves; a new replica restored from that
 * directory served over HTTP (a bearer token, as object storage behind a signed URL or an internal host
 * would ask) answers exactly as the source at the same head, then follows the chain past the snapshot's
 * head — across a reorg that replaced the head the snapshot was taken at. A snapshot of another chain, a
 * wrong token and a tampered file each stop the start with one line, and no store is left behind.
 */
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { createReadStream, existsSync, readFileSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { after, before, test } from 'node:test'
import { createTestClient, http } from 'viem'
import { foundry } from 'viem/chains'
import { explorerOptionsFromEnv } from '../../src/config/explorer-options.js'
import { startExplorer } from '../../src/explorer/start-explorer.js'
import { explorerEnv, pageThrough, startTestExplorer, tempDataDir, waitFor, waitForHead, type TestExplorer, sendSettlements, startLocalChain, type LocalChain, scriptArgs, tempDir } from '../../src/devnet/testing/index.js'

const TOKEN = 'snapshot-reader-token'
let chain: LocalChain
let source: TestExplorer
let server: Server
let snapshotUrl: string
let snapshotDir: string

/** Serves the snapshot directory to bearers of TOKEN, as a bucket or an internal host would. */
function serveDirectory(dir: string): Promise<string> {
  server = createServer((req, res) => {
    const file = join(dir, (req.url ?? '/').replace(/^\/snap\//, ''))
    if (req.headers.authorization !== `Bearer ${TOKEN}`) return void res.writeHead(401).end('unauthorized')
    if (!req.url?.startsWith('/snap/') || !existsSync(file)) return void res.writeHead(404).end()
    createReadStream(file).pipe(res.writeHead(200))
  })
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}/snap`)))
}

async function snapshotCommand(dataDir: string, outDir: string): Promise<{ code: number; stderr: string }> {
  const child = spawn(process.execPath, [...scriptArgs('scripts/explorer.ts'), 'snapshot', outDir], {
    env: { ...process.env, ...explorerEnv(chain, { DATA_DIR: dataDir, LOG_LEVEL: 'info' }) },
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  let stderr = ''
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const [code] = (await once(child, 'exit')) as [number]
  return { code, stderr }
}

/** Every settlement and the stats, as a client pages through them. */
async function answers(explorer: TestExplorer): Promise<unknown> {
  const { events } = await pageThrough(explorer.url, { order: 'asc', limit: '7' })
  const stats = (await explorer.get('/stats')).body
  const recipient = events[0]!.recipient
  return { events, stats, recipientPage: (await explorer.get(`/events?recipient=${recipient}&limit=5`)).body }
}

before(async () => {
  chain = await startLocalChain()
  await sendSettlements(chain, 12)
  source = await startTestExplorer(chain, { CONFIRMATION_BLOCKS: '0' })
  await waitForHead(chain, source.url)
})
after(async () => {
  server?.close()
  await source?.stop()
  await chain?.stop()
})

test('a snapshot taken while the source serves restores a replica that answers as the source, then follows the chain across a reorg of the snapshot head', async () => {
  const testClient = createTestClient({ chain: foundry, mode: 'anvil', transport: http(chain.rpcUrl) })
  const beforeHead = await testClient.snapshot()
  await sendSettlements(chain, 4)
  await waitForHead(chain, source.url)
  snapshotDir = tempDir('explorer-snapshot-')
  const written = await snapshotCommand(source.dataDir, snapshotDir)
  assert.equal(written.code, 0, written.stderr)
  assert.match(written.stderr, /snapshot written/)
  const manifest = JSON.parse(readFileSync(join(snapshotDir, 'snapshot.json'), 'utf8'))
  assert.equal(manifest.settlements, 16)
  assert.equal(manifest.chainId, chain.deployment.chainId)
  snapshotUrl = await serveDirectory(snapshotDir)

  // The four last settlements and the snapshot's head are replaced by another branch before the replica starts.
  await testClient.revert({ id: beforeHead })
  await testClient.mine({ blocks: 2 })
  await sendSettlements(chain, 3)
  await waitForHead(chain, source.url)
  const replica = await startTestExplorer(chain, { CONFIRMATION_BLOCKS: '0', SNAPSHOT_FROM: snapshotUrl, SNAPSHOT_TOKEN: TOKEN })
  try {
    await waitForHead(chain, replica.url)
    await waitFor('the replica to hold the new branch', async () => (await replica.get('/stats')).body.totalSettlements === 15)
    assert.deepEqual(await answers(replica), await answers(source))
    // It started at the snapshot's head, not from the chain's start: that head had to be rolled back.
    assert.match(await (await fetch(`${replica.url}/metrics`)).text(), /^explorer_reorgs_total [1-9]\d*$/m)
    await sendSettlements(chain, 2)
    await waitForHead(chain, source.url)
    await waitForHead(chain, replica.url)
    assert.deepEqual(await answers(replica), await answers(source))
  } finally {
    await replica.stop()
  }
})

test('a wrong token, another chain or a tampered file stop the start with one line, leaving no store', async () => {
  const start = (env: Record<string, string>, dataDir = tempDataDir()) =>
    startExplorer(explorerOptionsFromEnv(explorerEnv(chain, { DATA_DIR: dataDir, ...env }))).then(
      async (explorer) => {
        await explorer.stop()
        throw new Error('the explorer started')
      },
      (error: Error) => ({ message: error.message, stored: existsSync(join(dataDir, 'data.mdb')) }),
    )
  assert.deepEqual(await start({ SNAPSHOT_FROM: snapshotUrl, SNAPSHOT_TOKEN: 'wrong' }), { message: 'SNAPSHOT_FROM answered 401 for snapshot.json', stored: false })
  const other = await start({ SNAPSHOT_FROM: snapshotDir, CHAIN_ID: '1', RPC_URL: chain.rpcUrl })
  assert.match(other.message, /^SNAPSHOT_FROM holds chain 31337 contract 0x[0-9a-f]{40}, not chain 1 contract/)
  assert.equal(other.stored, false)
  const manifestPath = join(snapshotDir, 'snapshot.json')
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'))
  writeFileSync(manifestPath, JSON.stringify({ ...manifest, sha256: 'ab'.repeat(32) }))
  const tampered = await start({ SNAPSHOT_FROM: snapshotUrl, SNAPSHOT_TOKEN: TOKEN })
  assert.match(tampered.message, /^SNAPSHOT_FROM: data\.mdb is not the file the manifest names/)
  assert.equal(tampered.stored, false)
})
