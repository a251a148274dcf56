/**
 * Opaque cursors: base64url of version ‖ primary key ‖ check. The check (FNV-1a of the rest) makes an
 * edited or truncated cursor fail loudly instead of silently jumping to some other position. The same
 * cursor works for REST pages, WebSocket `since` and SSE `Last-Event-ID`.
 */
import { PK_BYTES, decodePk, writePk, type Position } from './keys.js'

const VERSION = 1
const CHECK_BYTES = 2
const CURSOR_BYTES = 1 + PK_BYTES + CHECK_BYTES

function check(bytes: Uint8Array): number {
  let hash = 0x811c9dc5
  for (const byte of bytes) hash = Math.imul(hash ^ byte, 0x01000193)
  return (hash ^ (hash >>> 16)) & 0xffff
}

export function encodeCursor(blockNumber: number, logIndex: number): string {
  const bytes = Buffer.allocUnsafe(CURSOR_BYTES)
  bytes[0] = VERSION
  writePk(bytes, 1, blockNumber, logIndex)
  bytes.writeUInt16BE(check(bytes.subarray(0, 1 + PK_BYTES)), 1 + PK_BYTES)
  return bytes.toString('base64url')
}

/** The position a cursor names, or `undefined` when it is not one of ours. */
export function decodeCursor(cursor: string): Position | undefined {
  if (!/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined
  const bytes = Buffer.from(cursor, 'base64url')
  if (bytes.length !== CURSOR_BYTES || bytes[0] !== VERSION) return undefined
  if (bytes.readUInt16BE(1 + PK_BYTES) !== check(bytes.subarray(0, 1 + PK_BYTES))) return undefined
  if (bytes.toString('base64url') !== cursor) return undefined
  const position = decodePk(bytes.subarray(1, 1 + PK_BYTES))
  // The next block must still be representable: paging may continue at the next block's start.
  if (position.blockNumber >= 2 ** 48 - 2) return undefined
  return position
}
