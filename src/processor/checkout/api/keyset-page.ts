/**
 * The keyset pages of the merchant API's listings (charges, refunds, payment links): newest first by the
 * table's `seq`, `limit` rows (20 by default) and an opaque `nextCursor` naming the last row's `seq`, so
 * rows created while a client pages never shift the pages it has not read yet. One page reads one row
 * more than it returns, to know whether another follows.
 */
import { badParam } from '../../../platform/http/index.js'

export const DEFAULT_PAGE_SIZE = 20

export interface PageQuery {
  cursor?: string
  limit?: string
}

const CURSOR = /^c1\.([1-9][0-9]{0,18})$/

/** Opaque to merchants: the `seq` of the last row of a page. */
export const encodeListCursor = (seq: string) => Buffer.from(`c1.${seq}`).toString('base64url')

export function decodeListCursor(cursor: string): string {
  const seq = CURSOR.exec(Buffer.from(cursor, 'base64url').toString())?.[1]
  if (!seq || encodeListCursor(seq) !== cursor) throw badParam('cursor', 'cursor is not one this API returned')
  return seq
}

/** The page `query` asks for, of rows `read` gives newest first from before `beforeSeq`. */
export async function keysetPage<T extends { seq: string }>(query: PageQuery, read: (page: { beforeSeq?: string; limit: number }) => Promise<T[]>): Promise<{ rows: T[]; nextCursor: string | null }> {
  const limit = query.limit === undefined ? DEFAULT_PAGE_SIZE : Number(query.limit)
  const beforeSeq = query.cursor === undefined ? undefined : decodeListCursor(query.cursor)
  const rows = await read({ beforeSeq, limit: limit + 1 })
  const page = rows.slice(0, limit)
  return { rows: page, nextCursor: rows.length > limit ? encodeListCursor(page.at(-1)!.seq) : null }
}
