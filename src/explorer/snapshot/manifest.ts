/**
 * A snapshot directory: the store's LMDB file (`data.mdb`, compacted) and `snapshot.json`, which says what
 * it holds — the chain and contract, the indexed head and settlement count at the moment of the copy, the
 * store layout, and the file's size and SHA-256 that a replica checks before it serves from it.
 */
import type { Hex } from '../../wire/index.js'
import { SnapshotError } from './snapshot-error.js'

export const SNAPSHOT_FORMAT = 1
export const MANIFEST_FILE = 'snapshot.json'
export const DATA_FILE = 'data.mdb'

export interface SnapshotManifest {
  format: typeof SNAPSHOT_FORMAT
  chainId: number
  contract: Hex
  layout: number
  head: { blockNumber: number; blockHash: Hex } | null
  settlements: number
  bytes: number
  sha256: string
  createdAt: string
}

/** The manifest as read from a file or a URL: a wrong shape is a clear error, never a half-read replica. */
export function parseManifest(text: string, where: string): SnapshotManifest {
  let value: Partial<SnapshotManifest>
  try {
    value = JSON.parse(text) as Partial<SnapshotManifest>
  } catch (error) {
    throw new SnapshotError(`${where} is not a snapshot manifest (not JSON)`, { cause: error })
  }
  const ok =
    value.format === SNAPSHOT_FORMAT &&
    Number.isSafeInteger(value.chainId) &&
    typeof value.contract === 'string' &&
    Number.isSafeInteger(value.bytes) &&
    typeof value.sha256 === 'string' &&
    /^[0-9a-f]{64}$/.test(value.sha256)
  if (!ok) throw new SnapshotError(`${where} is not a snapshot manifest of format ${SNAPSHOT_FORMAT}`)
  return value as SnapshotManifest
}
