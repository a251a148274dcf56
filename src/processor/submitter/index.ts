/**
 * The broadcast submitter (PROCESSOR.md §2): submissions from the queue, validated, signed and sent by
 * the one relayer holding the lock, fees bumped when stuck.
 */
export * from './start-submitter.js'
