/**
 * IP addresses as 16 bytes (IPv4 as IPv4-mapped IPv6, so that `127.0.0.1`, `::ffff:127.0.0.1` and uWS's
 * `0000:…:ffff:7f00:0001` are one address), address ranges (CIDR), and the key a per-address limit
 * counts under: an IPv4 address, or an IPv6 address's /64 — one subscriber's network, since a single
 * host is handed a whole /64 and can take a fresh address from it for every request.
 */

export type IpBytes = Uint8Array

const V4_PART = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/
const V6_GROUP = /^[0-9a-fA-F]{1,4}$/

function parseIpv4(text: string): number[] | undefined {
  const parts = text.split('.')
  if (parts.length !== 4 || !parts.every((part) => V4_PART.test(part))) return undefined
  return parts.map(Number)
}

function parseIpv6(text: string): IpBytes | undefined {
  let hex = text.replace(/%[0-9A-Za-z._~-]+$/, '') // a zone (fe80::1%eth0) names the interface, not the host
  const tail = hex.slice(hex.lastIndexOf(':') + 1)
  if (tail.includes('.')) {
    const v4 = parseIpv4(tail)
    if (!v4) return undefined
    hex = `${hex.slice(0, hex.length - tail.length)}${((v4[0]! << 8) | v4[1]!).toString(16)}:${((v4[2]! << 8) | v4[3]!).toString(16)}`
  }
  const halves = hex.split('::')
  if (halves.length > 2) return undefined
  const groupsOf = (half: string) => (half === '' ? [] : half.split(':'))
  const left = groupsOf(halves[0]!)
  const right = halves.length === 2 ? groupsOf(halves[1]!) : []
  const count = left.length + right.length
  if (halves.length === 1 ? count !== 8 : count > 7) return undefined
  if (![...left, ...right].every((group) => V6_GROUP.test(group))) return undefined
  const groups = [...left, ...Array<string>(8 - count).fill('0'), ...right].map((group) => parseInt(group, 16))
  const bytes = new Uint8Array(16)
  groups.forEach((group, i) => {
    bytes[2 * i] = group >> 8
    bytes[2 * i + 1] = group & 0xff
  })
  return bytes
}

/** The address written as text (IPv4 dotted, or IPv6 in any of its forms), or `undefined` when it is none. */
export function parseIp(text: string): IpBytes | undefined {
  if (text.includes(':')) return parseIpv6(text)
  const v4 = parseIpv4(text)
  return v4 && new Uint8Array([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, ...v4])
}

const isIpv4 = (ip: IpBytes) => ip.subarray(0, 10).every((byte) => byte === 0) && ip[10] === 0xff && ip[11] === 0xff

/** What a per-address limit counts under: the IPv4 address, or the IPv6 address's /64 (`2001:db8:0:1::/64`). */
export function addressKey(ip: IpBytes): string {
  if (isIpv4(ip)) return ip.subarray(12).join('.')
  const groups = [0, 1, 2, 3].map((i) => ((ip[2 * i]! << 8) | ip[2 * i + 1]!).toString(16))
  return `${groups.join(':')}::/64`
}

/** A range of addresses: a network and how many of its leading bits a member shares. */
export interface IpRange {
  network: IpBytes
  bits: number
}

/** `address` or `address/prefix` (an IPv4 prefix counts IPv4's 32 bits), or `undefined` when malformed. */
export function parseIpRange(text: string): IpRange | undefined {
  const [address, prefix, extra] = text.split('/')
  const network = parseIp(address!)
  if (!network || extra !== undefined) return undefined
  const v4 = !address!.includes(':')
  const width = v4 ? 32 : 128
  if (prefix !== undefined && !/^\d{1,3}$/.test(prefix)) return undefined
  const bits = prefix === undefined ? width : Number(prefix)
  if (bits > width) return undefined
  return { network, bits: v4 ? 96 + bits : bits }
}

export function rangeHolds(range: IpRange, ip: IpBytes): boolean {
  const whole = range.bits >> 3
  for (let i = 0; i < whole; i++) if (ip[i] !== range.network[i]) return false
  const rest = range.bits & 7
  if (rest === 0) return true
  const mask = (0xff << (8 - rest)) & 0xff
  return (ip[whole]! & mask) === (range.network[whole]! & mask)
}
