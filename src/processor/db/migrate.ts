/**
 * Brings the schema up to date with node-pg-migrate and the versioned SQL files in `migrations/`.
 * Every piece calls it at start-up; concurrent starts wait on the tool's advisory lock, so replicas
 * starting together apply each migration once. `npm run migrate` runs the same tool by hand.
 */
import { fileURLToPath } from 'node:url'

// Beside this module: src/processor/db/migrations under tsx, dist/migrations in a build (scripts/build.ts copies them).
export const MIGRATIONS_DIR = fileURLToPath(new URL('./migrations', import.meta.url))

export async function migrate(databaseUrl: string): Promise<void> {
  // Loaded on the first migration, not with this module: the tool costs a process ~0.27 s of CPU to load
  // (measured on the admin command's bundle, 0.46 -> 0.19 s), and most processes that load the database
  // layer never migrate (the admin and wallet commands, the pieces' children in tests).
  const { runner } = await import('node-pg-migrate')
  await runner({
    databaseUrl,
    dir: MIGRATIONS_DIR,
    direction: 'up',
    migrationsTable: 'pgmigrations',
    advisoryLockMode: 'wait',
    log: () => {},
  })
}
