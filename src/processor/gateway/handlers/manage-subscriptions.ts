/**
 * SUBSCRIBE_BALANCE, SUBSCRIBE_TRANSFERS and UNSUBSCRIBE. Subscriptions live on the connection and end
 * with it. A balance subscription starts by reading the current balance, so that a BALANCE_UPDATE is
 * pushed only when the value differs from what the wallet could already know. An acknowledgement lists
 * the separators the request named (subscribing twice is harmless); UNSUBSCRIBE lists those it actually
 * removed, and with an empty list removes every separator of the channel.
 */
import type { Hex } from 'viem'
import type { Handler } from './context.js'

export const subscribeBalance: Handler<'SUBSCRIBE_BALANCE'> = async (ctx, conn, { payload }) => {
  const tokens = payload.domainSeparators.map((separator) => ctx.chain.token(separator))
  const fresh = tokens.filter((token) => !conn.balances.has(token.domainSeparator))
  const balances = await Promise.all(fresh.map((token) => ctx.chain.balanceOf(token.address, conn.address)))
  fresh.forEach((token, i) => conn.balances.set(token.domainSeparator, balances[i]!))
  if (conn.balances.size > 0 && conn.open) ctx.registry.balanceWatchers.add(conn)
  return { type: 'SUBSCRIBE_BALANCE_ACK', requestId: payload.requestId, subscribedSeparators: payload.domainSeparators }
}

export const subscribeTransfers: Handler<'SUBSCRIBE_TRANSFERS'> = async (ctx, conn, { payload }) => {
  const tokens = payload.domainSeparators.map((separator) => ctx.chain.token(separator))
  for (const token of tokens) conn.transfers.add(token.domainSeparator)
  return { type: 'SUBSCRIBE_TRANSFERS_ACK', requestId: payload.requestId, subscribedSeparators: payload.domainSeparators }
}

export const unsubscribe: Handler<'UNSUBSCRIBE'> = async (ctx, conn, { payload }) => {
  const subscribed: Set<Hex> | Map<Hex, bigint> = payload.channel === 'BALANCE' ? conn.balances : conn.transfers
  const named = payload.domainSeparators.length > 0 ? payload.domainSeparators : [...subscribed.keys()]
  const removed = named.filter((separator) => subscribed.delete(separator))
  if (conn.balances.size === 0) ctx.registry.balanceWatchers.delete(conn)
  return { type: 'UNSUBSCRIBE_ACK', requestId: payload.requestId, unsubscribedSeparators: removed }
}
