/**
 * Filters as topics. A filter (an AND of up to six field values) has a shape — the bit set of the
 * fields it names — and one canonical topic string. A settlement belongs to one topic per shape, or,
 * for the shapes that name `address`, to one per distinct address it involves (payer, and recipient
 * when it differs): those topics differ in their address value, so a subscription (which sits in one
 * topic) gets a settlement at most once, and publishing to the topics of the shapes in use (64 in all)
 * reaches every matching subscriber with hash lookups, never a loop over subscribers.
 */
import { FILTER_FIELDS, type SettlementFilter } from '../../query/index.js'

export const SHAPE_COUNT = 1 << FILTER_FIELDS.length

const ADDRESS_INDEX = FILTER_FIELDS.indexOf('address')
const ADDRESS_BIT = 1 << ADDRESS_INDEX

/** Field values of a settlement as lowercase hex without 0x, in `FILTER_FIELDS` order (query's `fieldValuesOf`). */
export type FieldValues = string[]

function topicOf(shape: number, values: FieldValues): string {
  let topic = `${shape}`
  for (let i = 0; i < values.length; i++) if (shape & (1 << i)) topic += `:${values[i]}`
  return topic
}

export function filterTopic(filter: SettlementFilter): { shape: number; topic: string } {
  let shape = 0
  const values = FILTER_FIELDS.map((field, i) => {
    const value = filter[field]
    if (value === undefined) return ''
    shape |= 1 << i
    return value.slice(2)
  })
  return { shape, topic: topicOf(shape, values) }
}

/**
 * Amount bounds cannot be topics a settlement is found in by hash (a range holds many amounts): a
 * filter with bounds sits in its own group, named by its field topic and its bounds, which the hub
 * keeps under that field topic and checks against each settlement's amount there (live-hub.ts).
 * Field topics stay what they were, so the page cache, which groups pages by them, is unchanged.
 */
export function amountTopic(fieldTopic: string, filter: SettlementFilter): string {
  if (filter.minAmount === undefined && filter.maxAmount === undefined) return fieldTopic
  return `${fieldTopic}~${filter.minAmount ?? ''}~${filter.maxAmount ?? ''}`
}

/** The topics of one shape that a settlement belongs to: one, or one per address when the shape names `address`. */
export function topicsOf(shape: number, values: FieldValues[]): string[] {
  return shape & ADDRESS_BIT ? values.map((v) => topicOf(shape, v)) : [topicOf(shape, values[0]!)]
}

/** Members per shape, and the shapes with any: only those are worth matching a settlement against. */
export class ShapeCounts {
  #counts = new Array<number>(SHAPE_COUNT).fill(0)
  /** The shapes with members, in increasing order. */
  active: number[] = []

  add(shape: number, by: number): void {
    const before = this.#counts[shape]!
    this.#counts[shape] = before + by
    if (before === 0 || before + by === 0) this.active = this.#counts.flatMap((n, s) => (n > 0 ? [s] : []))
  }
}
