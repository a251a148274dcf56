/**
 * What the search box was given: a transaction hash (32 bytes), an order reference (16 bytes) or an
 * address (20 bytes), told apart by length alone, as the explorer's API tells them apart.
 */
import type { Route } from './routes.js'

export type Understood = { route: Route; label: string } | { route: undefined; label: string }

export function classifyQuery(text: string): Understood {
  const value = text.trim().toLowerCase()
  const hex = /^0x[0-9a-f]*$/.test(value) ? value.length - 2 : -1
  if (hex === 64) return { route: { view: 'tx', txHash: value }, label: 'Transaction hash' }
  if (hex === 32) return { route: { view: 'order', orderReference: value }, label: 'Order reference' }
  if (hex === 40) return { route: { view: 'address', address: value }, label: 'Address' }
  return { route: undefined, label: 'Not understood: a transaction hash is 0x + 64 hex digits, an order reference 0x + 32, an address 0x + 40' }
}
