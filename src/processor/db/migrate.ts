/**
 * Brings the schema up to date with node-pg-migrate and the versioned SQL files in `migrations/`.
 * Every piece calls it at start-up; concurrent starts wait on the tool's advisory lock, so replicas
 * starting together apply each migration once. `npm run migrate` runs the same tool by hand.
 */
import { fileURLToPath } from 'node:url'
import { runner } from 'node-pg-migrate'

// Beside this module: src/processor/db/migrations under tsx, dist/migrations in a build (scripts/build.ts copies them).
export const MIGRATIONS_DIR = fileURLToPath(new URL('./migrations', import.meta.url))

export async function migrate(databaseUrl: string): Promise<void> {
  await runner({
    databaseUrl,
    dir: MIGRATIONS_DIR,
    direction: 'up',
    migrationsTable: 'pgmigrations',
    advisoryLockMode: 'wait',
    log: () => {},
  })
}
