/**
 * Snapshots of the explorer's store (issue 40): written beside a serving explorer, restored by a new
 * replica in place of a backfill.
 */
export { writeSnapshot } from './write-snapshot.js'
export { restoreSnapshot } from './restore-snapshot.js'
export { DATA_FILE, MANIFEST_FILE, type SnapshotManifest } from './manifest.js'
