/**
 * Moving a store to the current layout without losing service: a layout-6 store converted into a new
 * directory beside the explorer still serving from it (docs/operating.md, "Moving to a new store layout").
 */
export { migrateStore, type MigrateOptions, type Migrated } from './migrate-store.js'
