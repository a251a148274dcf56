/**
 * The explorer's cursors in query's words, for the api: a position's cursor, the position a cursor
 * names, and the cursor to resume from to get a bound again. The cursor's bytes are the store's
 * (store/cursor.ts); the api holds cursors and positions, never the keys beneath them.
 */
import { decodeCursor, decodePk, encodeCursor, type Position } from '../store/index.js'
import { positionBefore } from './replay.js'

/** The cursor of a position: a settlement's own (a settlement is a position), or any other. */
export const cursorOf = (p: Position): string => encodeCursor(p.blockNumber, p.logIndex)

/** The position a cursor names, or `undefined` when it is not one this explorer issued. */
export const positionOfCursor = (cursor: string): Position | undefined => decodeCursor(cursor)

/** The cursor just before a replay bound (replay.ts): resuming from it includes the bound's own position again. */
export const cursorBefore = (bound: Buffer): string => cursorOf(positionBefore(decodePk(bound)))
