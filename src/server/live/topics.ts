/**
 * Filters as topics. A filter (an AND of up to five field values) has a shape — the bit set of the
 * fields it names — and one canonical topic string. A settlement belongs to exactly one topic per shape
 * (32 in all), so publishing it to the topics of the shapes in use reaches every matching subscriber
 * with hash lookups, never a loop over subscribers.
 */
import { FILTER_FIELDS, type SettlementFilter } from '../../query/events-query.js'
import { fieldHex, type StoredSettlement } from '../../store/record.js'

export const SHAPE_COUNT = 1 << FILTER_FIELDS.length

/** Field values of a settlement as lowercase hex without 0x, in `FILTER_FIELDS` order. */
export type FieldValues = string[]

export function topicOf(shape: number, values: FieldValues): string {
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

export function fieldValues(s: StoredSettlement): FieldValues {
  return FILTER_FIELDS.map((field) => fieldHex(s, field))
}
