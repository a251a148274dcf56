/**
 * The key of the widget's per-address limits (link presses, live streams), in one place: the socket's
 * address, an IPv4-mapped IPv6 address as its IPv4 one, and an IPv6 address grouped by its /64 (one
 * subscriber's network hands out a whole /64, so a full address would give one client 2^64 buckets).
 * The platform's trusted-proxy reading (issue 38 item 3) replaces the socket's address here once it exists.
 */
import type { IncomingMessage } from 'node:http'
import { isIPv6 } from 'node:net'

export const clientAddressOf = (req: IncomingMessage): string => addressGroup(req.socket.remoteAddress ?? '')

export function addressGroup(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)
  if (mapped) return mapped[1]!
  if (!isIPv6(address)) return address
  const [head, tail = ''] = address.split('%')[0]!.split('::') as [string, string?]
  const groups = (part: string) => (part === '' ? [] : part.split(':'))
  const [left, right] = [groups(head), address.includes('::') ? groups(tail) : []]
  const full = [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right]
  return `${full.slice(0, 4).map((group) => parseInt(group, 16).toString(16)).join(':')}::/64`
}
