/**
 * Reads `PermittedTransfer` logs straight from the bytes of an `eth_getLogs` response: the JSON is
 * walked once and each field is found by position, never turned into strings or objects. Field values
 * are then decoded from the hex text into a batch's bytes (encoded-batch.ts). JSON.parse of a 5,000-log
 * response, the strings it makes and the garbage they leave were most of the indexing pool's time.
 */
import { BaseError } from '../../errors/index.js'
import { FIXED_BYTES } from '../store/index.js'
import type { SettlementSource } from '../store/index.js'
import { PERMITTED_TRANSFER_TOPIC } from './decode-settlement-log.js'
import { MalformedLogError, NodeReadError, RpcResponseError } from './node-errors.js'

/** Per log, where each field's text starts and ends (inside the quotes, 0x included). */
const TOPIC0 = 0
const DATA = 4
const BLOCK_NUMBER = 5
const BLOCK_HASH = 6
const BLOCK_TIMESTAMP = 7
const TX_HASH = 8
const LOG_INDEX = 9
const SLOTS = 10

const NAMES: [string, number][] = [
  ['data', DATA],
  ['blockNumber', BLOCK_NUMBER],
  ['blockHash', BLOCK_HASH],
  ['blockTimestamp', BLOCK_TIMESTAMP],
  ['transactionHash', TX_HASH],
  ['logIndex', LOG_INDEX],
]
const NAME_BYTES = NAMES.map(([name, slot]) => [Buffer.from(name), slot] as const)
const TOPICS = Buffer.from('topics')
const REMOVED = Buffer.from('removed')
const RESULT = Buffer.from('result')
const ERROR = Buffer.from('error')

const NIBBLE = new Int8Array(256).fill(-1)
for (let i = 0; i < 16; i++) {
  NIBBLE['0123456789abcdef'.charCodeAt(i)] = i
  NIBBLE['0123456789ABCDEF'.charCodeAt(i)] = i
}

/** The settlement logs of a response, in order, as a SettlementSource once their blocks' timestamps are known. */
export class ScannedLogs {
  readonly count: number
  #body: Buffer
  #at: Int32Array
  #timestamps = new Map<number, number>()

  constructor(body: Buffer) {
    this.#body = body
    const spans: number[] = []
    new JsonWalker(body, spans).response()
    this.#at = Int32Array.from(spans)
    this.count = spans.length / (2 * SLOTS)
    for (let i = 0; i < this.count; i++) this.#check(i)
  }

  blockNumber = (i: number) => this.#quantity(i, BLOCK_NUMBER)
  logIndex = (i: number) => this.#quantity(i, LOG_INDEX)
  /** The block's hash as lowercase hex with 0x. */
  blockHash = (i: number) => this.#text(i, BLOCK_HASH).toLowerCase()
  /** From the log when the node stamps it, else from `withTimestamps`; undefined when neither. */
  stampedTimestamp = (i: number) => (this.#has(i, BLOCK_TIMESTAMP) ? this.#quantity(i, BLOCK_TIMESTAMP) : this.#timestamps.get(this.blockNumber(i)))

  /** A SettlementSource over these logs; `timestamps` fills in blocks whose logs carry none. */
  withTimestamps(timestamps: Map<number, number>): SettlementSource {
    this.#timestamps = timestamps
    return {
      count: this.count,
      blockNumber: this.blockNumber,
      logIndex: this.logIndex,
      timestamp: (i) => {
        const t = this.stampedTimestamp(i)
        if (t === undefined) throw new NodeReadError(`block ${this.blockNumber(i)} has no timestamp`, { retryable: true })
        return t
      },
      amount: (i) => this.#word(i, 1),
      fee: (i) => this.#word(i, 2),
      writeFixed: (i, out, p) => {
        const data = this.#start(i, DATA) + 2
        p = this.#hex(out, p, this.#start(i, TX_HASH) + 2, 32)
        p = this.#hex(out, p, this.#start(i, TOPIC0 + 2) + 2 + 24, 20) // token
        p = this.#hex(out, p, this.#start(i, TOPIC0 + 3) + 2 + 24, 20) // payer
        p = this.#hex(out, p, data + 24, 20) // recipient
        p = this.#hex(out, p, data + 3 * 64, 32) // orderReference ‖ acquirerId
        this.#hex(out, p, this.#start(i, TOPIC0 + 1) + 2, 32) // domainSeparator
      },
    }
  }

  #start = (i: number, slot: number) => this.#at[(i * SLOTS + slot) * 2]!
  #length = (i: number, slot: number) => this.#at[(i * SLOTS + slot) * 2 + 1]! - this.#start(i, slot)
  #has = (i: number, slot: number) => this.#start(i, slot) >= 0
  #text = (i: number, slot: number) => this.#body.toString('latin1', this.#start(i, slot), this.#start(i, slot) + this.#length(i, slot))

  /** The checks decodeSettlementLog makes: the event's topic, three indexed words and four data words. */
  #check(i: number): void {
    const topic0 = this.#has(i, TOPIC0) ? this.#text(i, TOPIC0).toLowerCase() : ''
    const words = [1, 2, 3].every((t) => this.#has(i, TOPIC0 + t) && this.#length(i, TOPIC0 + t) === 66)
    const fields = [BLOCK_NUMBER, BLOCK_HASH, TX_HASH, LOG_INDEX].every((slot) => this.#has(i, slot))
    if (topic0 !== PERMITTED_TRANSFER_TOPIC || !words || !fields || this.#length(i, DATA) !== 2 + 4 * 64 || this.#length(i, TX_HASH) !== 66) {
      throw new MalformedLogError(`log ${this.#has(i, TX_HASH) ? this.#text(i, TX_HASH) : '?'}:${this.#has(i, LOG_INDEX) ? this.#text(i, LOG_INDEX) : '?'} is not a PermittedTransfer`)
    }
  }

  /** A hex quantity (0x-prefixed, at most 13 digits here: block numbers, log indexes, timestamps). */
  #quantity(i: number, slot: number): number {
    const start = this.#start(i, slot) + 2
    const end = start + this.#length(i, slot) - 2
    if (end <= start || end - start > 13) throw new MalformedLogError(`log field ${this.#text(i, slot)} is not a quantity`)
    let n = 0
    for (let p = start; p < end; p++) {
      const v = NIBBLE[this.#body[p]!]!
      if (v < 0) throw new MalformedLogError(`log field ${this.#text(i, slot)} is not a quantity`)
      n = n * 16 + v
    }
    return n
  }

  /** Data word `w` as an unsigned integer. */
  #word(i: number, w: number): bigint {
    const start = this.#start(i, DATA) + 2 + w * 64
    let p = start
    while (p < start + 51 && this.#body[p] === 0x30) p++
    if (p === start + 51) return BigInt(this.#small(p, start + 64))
    return BigInt(`0x${this.#body.toString('latin1', start, start + 64)}`)
  }

  /** 13 hex digits or fewer: a safe integer, read without a string. */
  #small(from: number, to: number): number {
    let n = 0
    for (let p = from; p < to; p++) {
      const v = NIBBLE[this.#body[p]!]!
      if (v < 0) throw new MalformedLogError('a log data word is not hex')
      n = n * 16 + v
    }
    return n
  }

  #hex(out: Buffer, p: number, from: number, bytes: number): number {
    const body = this.#body
    for (let k = 0; k < bytes; k++) {
      const hi = NIBBLE[body[from + 2 * k]!]!
      const lo = NIBBLE[body[from + 2 * k + 1]!]!
      if ((hi | lo) < 0) throw new MalformedLogError('a log field is not hex')
      out[p++] = (hi << 4) | lo
    }
    return p
  }
}

/** The fixed run's size is what writeFixed fills: 32 + 20 + 20 + 20 + 32 + 32. */
if (32 + 20 * 3 + 32 * 2 !== FIXED_BYTES) throw new BaseError('scan-logs.ts writes another fixed layout than record.ts')

/**
 * A minimal JSON walker over bytes: the response object, its `result` array of log objects (each
 * field's span recorded in SLOTS pairs, -1 when absent; removed logs left out) or its `error`.
 */
class JsonWalker {
  #p = 0
  constructor(
    private readonly b: Buffer,
    private readonly spans: number[],
  ) {}

  response(): void {
    this.#members((name) => {
      if (this.#nameIs(name, RESULT)) this.#logs()
      else if (this.#nameIs(name, ERROR)) {
        const start = this.#p
        this.#skip()
        const error = JSON.parse(this.b.toString('utf8', start, this.#p)) as { message?: string }
        throw new RpcResponseError(error.message ?? 'the node answered with an error', { retryable: true })
      } else this.#skip()
    })
  }

  #logs(): void {
    this.#ws()
    if (this.b[this.#p] === 0x6e) return this.#skip() // null
    this.#elements(() => this.#log())
  }

  #log(): void {
    const at = this.spans.length
    for (let s = 0; s < 2 * SLOTS; s++) this.spans.push(-1)
    let removed = false
    this.#members((name) => {
      this.#ws()
      if (this.#nameIs(name, TOPICS)) {
        return this.#elements((t) => {
          const [start, end] = this.#string()
          if (t < 4) this.#set(at, TOPIC0 + t, start, end)
        })
      }
      if (this.#nameIs(name, REMOVED)) {
        removed = this.b[this.#p] === 0x74 // true
        return this.#skip()
      }
      for (const [bytes, slot] of NAME_BYTES) {
        if (this.#nameIs(name, bytes) && this.b[this.#p] === 0x22) {
          const [start, end] = this.#string()
          return this.#set(at, slot, start, end)
        }
      }
      this.#skip()
    })
    if (removed) this.spans.length = at
  }

  #set(at: number, slot: number, start: number, end: number): void {
    this.spans[at + slot * 2] = start
    this.spans[at + slot * 2 + 1] = end
  }

  /** Calls `member` with each member's name span, `#p` at its value; the value must be consumed. */
  #members(member: (name: [number, number]) => void): void {
    this.#ws()
    this.#expect(0x7b)
    this.#ws()
    if (this.b[this.#p] === 0x7d) return void this.#p++
    for (;;) {
      this.#ws()
      const name = this.#string()
      this.#ws()
      this.#expect(0x3a)
      this.#ws()
      member(name)
      this.#ws()
      if (this.b[this.#p] === 0x7d) return void this.#p++
      this.#expect(0x2c)
    }
  }

  /** Calls `element` with each element's position in the array at `#p`, `#p` at the element; it must be consumed. */
  #elements(element: (index: number) => void): void {
    this.#expect(0x5b)
    this.#ws()
    if (this.b[this.#p] === 0x5d) return void this.#p++
    for (let i = 0; ; i++) {
      this.#ws()
      element(i)
      this.#ws()
      if (this.b[this.#p] === 0x5d) return void this.#p++
      this.#expect(0x2c)
    }
  }

  #nameIs([start, end]: [number, number], name: Buffer): boolean {
    if (end - start !== name.length) return false
    for (let k = 0; k < name.length; k++) if (this.b[start + k] !== name[k]) return false
    return true
  }

  /** A string's contents, escapes left as they are (hex fields have none); the closing quote found natively. */
  #string(): [number, number] {
    this.#expect(0x22)
    const start = this.#p
    let end = this.b.indexOf(0x22, start)
    while (end > 0 && this.#escaped(end)) end = this.b.indexOf(0x22, end + 1)
    if (end < 0) throw new NodeReadError('eth_getLogs answer ends inside a string', { retryable: true })
    this.#p = end + 1
    return [start, end]
  }

  /** Whether the quote at `at` follows an odd number of backslashes. */
  #escaped(at: number): boolean {
    let backslashes = 0
    while (this.b[at - 1 - backslashes] === 0x5c) backslashes++
    return backslashes % 2 === 1
  }

  #skip(): void {
    this.#ws()
    const c = this.b[this.#p]
    if (c === 0x22) return void this.#string()
    if (c === 0x7b) return this.#members(() => this.#skip())
    if (c === 0x5b) return this.#elements(() => this.#skip())
    // A number or a literal: up to the next delimiter.
    const start = this.#p
    while (this.#p < this.b.length && !DELIMITER[this.b[this.#p]!]) this.#p++
    if (this.#p === start) throw new NodeReadError(`eth_getLogs answer is not JSON at byte ${start}`, { retryable: true })
  }

  #ws(): void {
    while (WHITESPACE[this.b[this.#p]!]) this.#p++
  }

  #expect(c: number): void {
    if (this.b[this.#p] !== c) throw new NodeReadError(`eth_getLogs answer is not JSON at byte ${this.#p}`, { retryable: true })
    this.#p++
  }
}

const WHITESPACE = new Uint8Array(256)
for (const c of ' \t\n\r') WHITESPACE[c.charCodeAt(0)] = 1
const DELIMITER = new Uint8Array(256)
for (const c of ' \t\n\r,]}') DELIMITER[c.charCodeAt(0)] = 1
