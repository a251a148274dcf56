/**
 * The one place every per-address limit of every piece finds its client's key. The peer of the socket is
 * the client unless it is a trusted proxy (TRUSTED_PROXIES): then `X-Forwarded-For` is read from the right
 * (each proxy appends the address it got the request from), past every trusted hop, and the first address
 * that is not a trusted proxy is the client. Anything left of it was written by the client itself and is
 * never read, so a spoofed header from an untrusted peer changes nothing, and one from behind a proxy
 * only adds entries left of the one the proxy wrote. A malformed entry ends the walk at the trusted hop
 * that passed it on. The key is an IPv4 address or an IPv6 /64 (ip-address.ts).
 */
import { addressKey, parseIp, parseIpRange, rangeHolds, type IpBytes, type IpRange } from './ip-address.js'

/** TRUSTED_PROXIES as ranges, parsed once per list (the list of a piece's options lives as long as the piece). */
const parsed = new WeakMap<readonly string[], IpRange[]>()

function rangesOf(trustedProxies: readonly string[]): IpRange[] {
  let ranges = parsed.get(trustedProxies)
  if (!ranges) {
    ranges = trustedProxies.map((entry) => {
      const range = parseIpRange(entry)
      if (!range) throw new TypeError(`"${entry}" is not an address or address range (config validates TRUSTED_PROXIES)`)
      return range
    })
    parsed.set(trustedProxies, ranges)
  }
  return ranges
}

/** One X-Forwarded-For entry: an address, maybe with a port (`1.2.3.4:5678`, `[2001:db8::1]:443`). */
function parseHop(entry: string): IpBytes | undefined {
  const hop = entry.trim()
  const bracketed = /^\[([^\]]+)\](?::\d{1,5})?$/.exec(hop)
  if (bracketed) return parseIp(bracketed[1]!)
  const v4WithPort = /^([\d.]+):\d{1,5}$/.exec(hop)
  return parseIp(v4WithPort ? v4WithPort[1]! : hop)
}

/**
 * The key the per-address limits count `peer`'s request under. `forwardedFor`: the request's
 * X-Forwarded-For, all its lines joined with commas (read only when `peer` is a trusted proxy).
 */
export function clientAddress(peer: string, forwardedFor: string | undefined, trustedProxies: readonly string[]): string {
  let client = parseIp(peer)
  if (!client) return peer
  if (forwardedFor !== undefined && trustedProxies.length > 0) {
    const ranges = rangesOf(trustedProxies)
    const trusted = (ip: IpBytes) => ranges.some((range) => rangeHolds(range, ip))
    const hops = forwardedFor.split(',')
    for (let i = hops.length - 1; i >= 0 && trusted(client); i--) {
      const hop = parseHop(hops[i]!)
      if (!hop) break
      client = hop
    }
  }
  return addressKey(client)
}
