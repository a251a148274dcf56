/**
 * A block's logsBloom (Ethereum yellow paper, M3:2048): three bits per log address and topic, chosen by
 * the keccak-256 of its bytes. Ponder reads it to decide whether a block may hold its logs and checks
 * every log against it; the explorer never reads it. The fake node's addresses and topics repeat a lot
 * (3 tokens, 200k payers), so each one's bits are kept once computed.
 */
import { hexToBytes, keccak256, type Hex } from 'viem'

const BLOOM_BYTES = 256
const bitsOf = new Map<string, [number, number, number]>()

function bits(value: Hex): [number, number, number] {
  let known = bitsOf.get(value)
  if (!known) {
    const hash = hexToBytes(keccak256(value))
    known = [0, 2, 4].map((i) => ((hash[i]! << 8) | hash[i + 1]!) & 0x7ff) as [number, number, number]
    bitsOf.set(value, known)
  }
  return known
}

/** The bloom of logs given as their address and topics (lower-case hex). */
export function logsBloom(logs: { address: Hex; topics: Hex[] }[]): Hex {
  const bloom = new Uint8Array(BLOOM_BYTES)
  for (const log of logs) {
    for (const value of [log.address, ...log.topics]) {
      for (const bit of bits(value)) bloom[BLOOM_BYTES - 1 - (bit >> 3)]! |= 1 << (bit & 7)
    }
  }
  return `0x${Buffer.from(bloom).toString('hex')}`
}
