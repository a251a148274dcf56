/**
 * The tests' PostgreSQL: a database of its own per test file, in servers copied from one template cluster.
 * A piece apart from testing/ because the test runner (scripts/run-tests.ts) needs its template's name
 * and would otherwise load every fixture, a browser's driver included, before the first test starts.
 */
export * from './test-database.js'
