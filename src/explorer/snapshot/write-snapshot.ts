/**
 * `npm run explorer -- snapshot <dir>`: a consistent, compacted copy of an explorer's store, taken beside
 * the explorer that serves from it (LMDB lets a second process read; the copy runs in one read
 * transaction, so it is the store as of one commit). While the copy runs, pages the serving explorer frees
 * cannot be reused, so its file can grow by what it writes meanwhile — take snapshots from a replica whose
 * disk has that room. Progress (bytes written of the source's size) is logged every few seconds.
 */
import { createHash } from 'node:crypto'
import { createReadStream, existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Logger } from '../../platform/observability/index.js'
import { openStore, readCount, readHead, readIdentity, readLayout } from '../store/index.js'
import { DATA_FILE, MANIFEST_FILE, SNAPSHOT_FORMAT, type SnapshotManifest } from './manifest.js'
import { SnapshotError } from './snapshot-error.js'

const PROGRESS_EVERY_MS = 5_000

export async function writeSnapshot({ dataDir, outDir, log }: { dataDir: string; outDir: string; log: Logger }): Promise<SnapshotManifest> {
  if (!existsSync(join(dataDir, DATA_FILE))) throw new SnapshotError(`${dataDir} holds no explorer store (no ${DATA_FILE})`)
  if (existsSync(outDir) && readdirSync(outDir).length > 0) throw new SnapshotError(`${outDir} is not empty: a snapshot goes into a new directory`)
  mkdirSync(outDir, { recursive: true })
  const target = join(outDir, DATA_FILE)
  const sourceBytes = statSync(join(dataDir, DATA_FILE)).size
  const startedAt = performance.now()
  const progress = setInterval(() => {
    const written = existsSync(target) ? statSync(target).size : 0
    log.info('snapshot: copying', { writtenMb: mb(written), sourceMb: mb(sourceBytes), seconds: Math.round((performance.now() - startedAt) / 1000) })
  }, PROGRESS_EVERY_MS)
  const source = openStore({ path: dataDir, readOnly: true })
  try {
    // LMDB writes the copy as data.mdb inside the directory it is given.
    await source.env.backup(outDir, true)
  } finally {
    clearInterval(progress)
    await source.close()
  }
  // What the copy holds is read from the copy: the source may have committed since.
  const copy = openStore({ path: outDir, readOnly: true })
  const identity = readIdentity(copy)
  const head = readHead(copy) ?? null
  const settlements = readCount(copy)
  const layout = readLayout(copy)
  await copy.close()
  // Opening the copy made a lock file; a replica makes its own.
  rmSync(join(outDir, 'lock.mdb'), { force: true })
  if (!identity) throw new SnapshotError(`${dataDir} has no identity yet (the explorer has not started on it)`)
  const manifest: SnapshotManifest = {
    format: SNAPSHOT_FORMAT,
    chainId: identity.chainId,
    contract: identity.contract,
    layout,
    head,
    settlements,
    bytes: statSync(target).size,
    sha256: await sha256Of(target),
    createdAt: new Date().toISOString(),
  }
  writeFileSync(join(outDir, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`)
  log.info('snapshot written', { dir: outDir, head: head?.blockNumber, settlements, mb: mb(manifest.bytes), seconds: Math.round((performance.now() - startedAt) / 1000) })
  return manifest
}

async function sha256Of(path: string): Promise<string> {
  const hash = createHash('sha256')
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer)
  return hash.digest('hex')
}

const mb = (bytes: number) => Math.round(bytes / 1024 / 102.4) / 10
