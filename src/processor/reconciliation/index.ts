/**
 * Reconciliation (PROCESSOR.md §4): charges matched with the explorer's settlements through the SDK's
 * gapless feed, confirmed at depth, reverted on a reorg, expired on time.
 */
export * from './start-reconciler.js'
