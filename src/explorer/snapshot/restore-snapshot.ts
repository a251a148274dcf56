/**
 * A new replica's store, from a snapshot (SNAPSHOT_FROM: a directory, or the URL of one that another
 * replica's operator or object storage serves) instead of a backfill from the chain. Only when DATA_DIR
 * holds no store: an existing one is never replaced. The manifest must name this chain and contract; the
 * file is streamed to a temporary name while its SHA-256 is computed, and takes its place only when size
 * and hash match the manifest. The explorer then starts as after a restart and follows the chain from the
 * snapshot's head, rolling back first if that head is no longer on the chain.
 *
 * Protection: the hash proves the file is the one the manifest names, not who wrote the manifest. Serve
 * snapshots over https from a place only your operators write (a bucket, an internal host), and set
 * SNAPSHOT_TOKEN when the server wants a bearer token; a snapshot is public data (every settlement is on
 * chain), so what matters is that nobody else can put one there.
 */
import { createHash } from 'node:crypto'
import { createReadStream, createWriteStream, existsSync, mkdirSync, readFileSync, renameSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { Readable, Transform } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import type { SnapshotSource } from '../../config/index.js'
import { ConfigError } from '../../config/index.js'
import type { Logger } from '../../platform/observability/index.js'
import type { Hex } from '../../wire/index.js'
import { DATA_FILE, MANIFEST_FILE, parseManifest, type SnapshotManifest } from './manifest.js'
import { SnapshotError } from './snapshot-error.js'

const PROGRESS_EVERY_MS = 5_000

export interface RestoreParams {
  source: SnapshotSource
  dataDir: string
  identity: { chainId: number; contract: Hex }
  log: Logger
}

/** Fills an empty DATA_DIR from the snapshot; returns its manifest, or undefined when DATA_DIR already holds a store. */
export async function restoreSnapshot({ source, dataDir, identity, log }: RestoreParams): Promise<SnapshotManifest | undefined> {
  if (existsSync(join(dataDir, DATA_FILE))) return undefined
  const from = openSource(source)
  const manifest = parseManifest(await from.text(MANIFEST_FILE), `${from.name}/${MANIFEST_FILE}`)
  if (manifest.chainId !== identity.chainId || manifest.contract.toLowerCase() !== identity.contract.toLowerCase()) {
    throw new ConfigError(`SNAPSHOT_FROM holds chain ${manifest.chainId} contract ${manifest.contract}, not chain ${identity.chainId} contract ${identity.contract}`)
  }
  mkdirSync(dataDir, { recursive: true })
  const partial = join(dataDir, `${DATA_FILE}.partial`)
  const hash = createHash('sha256')
  const startedAt = performance.now()
  let copied = 0
  const progress = setInterval(() => {
    const seconds = (performance.now() - startedAt) / 1000
    const rate = copied / seconds
    log.info('snapshot: restoring', { copiedMb: mb(copied), totalMb: mb(manifest.bytes), mbPerSecond: mb(rate), etaSeconds: rate > 0 ? Math.round((manifest.bytes - copied) / rate) : null })
  }, PROGRESS_EVERY_MS)
  const tally = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      copied += chunk.length
      hash.update(chunk)
      done(null, chunk)
    },
  })
  try {
    await pipeline(await from.stream(DATA_FILE), tally, createWriteStream(partial))
  } catch (error) {
    rmSync(partial, { force: true })
    throw new SnapshotError(`SNAPSHOT_FROM: copying ${from.name}/${DATA_FILE} failed`, { cause: error, retryable: true })
  } finally {
    clearInterval(progress)
  }
  const sha256 = hash.digest('hex')
  if (copied !== manifest.bytes || sha256 !== manifest.sha256) {
    rmSync(partial, { force: true })
    throw new SnapshotError(`SNAPSHOT_FROM: ${DATA_FILE} is not the file the manifest names (${copied} bytes, sha256 ${sha256}; expected ${manifest.bytes}, ${manifest.sha256})`)
  }
  renameSync(partial, join(dataDir, DATA_FILE))
  log.info('snapshot restored', { head: manifest.head?.blockNumber, settlements: manifest.settlements, mb: mb(copied), seconds: Math.round((performance.now() - startedAt) / 1000) })
  return manifest
}

interface SnapshotReader {
  name: string
  text(file: string): Promise<string>
  stream(file: string): Promise<Readable>
}

function openSource({ from, token }: SnapshotSource): SnapshotReader {
  if (!/^https?:\/\//i.test(from)) {
    return { name: from, text: async (file) => readFileSync(join(from, file), 'utf8'), stream: async (file) => createReadStream(join(from, file)) }
  }
  const base = from.replace(/\/+$/, '')
  const get = async (file: string) => {
    const response = await fetch(`${base}/${file}`, { headers: token ? { authorization: `Bearer ${token}` } : {} }).catch((error: Error) => {
      throw new SnapshotError(`SNAPSHOT_FROM ${new URL(base).host} does not answer (${(error.cause as Error | undefined)?.message ?? error.message})`, { cause: error, retryable: true })
    })
    if (!response.ok || !response.body) throw new SnapshotError(`SNAPSHOT_FROM answered ${response.status} for ${file}`, { details: { status: response.status }, retryable: response.status >= 500 })
    return response
  }
  return {
    name: base,
    text: async (file) => (await get(file)).text(),
    stream: async (file) => Readable.fromWeb((await get(file)).body as never),
  }
}

const mb = (bytes: number) => Math.round(bytes / 1024 / 102.4) / 10
