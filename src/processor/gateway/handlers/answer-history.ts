/**
 * GET_HISTORY: the caller's settlements, newest first, from the explorer's `address` filter (payer or
 * recipient). One token is the explorer's `token` filter; several are filtered here from pages of the
 * address, each page asked for no more than the transfers still missing, so that the explorer's
 * `nextCursor` of the last page read is exactly where the next call continues. A call reads at most
 * MAX_PAGES pages: over sparse tokens an answer may hold fewer than `limit` transfers with a non-null
 * `nextCursor` (continue until it is null).
 */
import { ExplorerApiError, ExplorerError } from '../../../sdk/index.js'
import type { EventPage } from '../../../sdk/index.js'
import { transferOf } from '../explorer/transfer-of.js'
import { GatewayRefusal } from '../input/gateway-refusal.js'
import type { Transfer } from '../../../wire/index.js'
import type { GatewayContext, Handler } from './context.js'

export const DEFAULT_HISTORY_LIMIT = 20
const MAX_PAGES = 10

export const answerHistory: Handler<'GET_HISTORY'> = async (ctx, conn, { payload }) => {
  const tokens = payload.domainSeparators.map((separator) => ctx.chain.token(separator).address)
  const wanted = new Set(tokens)
  const limit = payload.limit ?? DEFAULT_HISTORY_LIMIT
  const transfers: Transfer[] = []
  let cursor = payload.cursor
  for (let page = 0; page < MAX_PAGES && transfers.length < limit; page++) {
    const { events, nextCursor } = await eventsPage(ctx, {
      address: conn.address,
      token: tokens.length === 1 ? tokens[0] : undefined,
      limit: limit - transfers.length,
      cursor,
    })
    for (const event of events) if (wanted.has(event.token)) transfers.push(transferOf(event, conn.address))
    cursor = nextCursor ?? undefined
    if (!cursor) break
  }
  return { type: 'HISTORY_RESULT', requestId: payload.requestId, transfers, nextCursor: cursor ?? null }
}

async function eventsPage(ctx: GatewayContext, query: Parameters<GatewayContext['explorer']['getEvents']>[0]): Promise<EventPage> {
  try {
    return await ctx.explorer.getEvents(query)
  } catch (error) {
    if (error instanceof ExplorerApiError && error.param === 'cursor') throw new GatewayRefusal('INVALID_FORMAT', 'payload.cursor is not a cursor this history gave out')
    if (!(error instanceof ExplorerError)) throw error
    ctx.log.warn('history unavailable', { error })
    throw new GatewayRefusal('INTERNAL_ERROR', 'the transfer history is unavailable right now; retry later', { cause: error })
  }
}
