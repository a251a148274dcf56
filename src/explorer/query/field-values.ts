/**
 * What a settlement is found under by filter field, for the live topics and the page cache's groups
 * (api/live/topics.ts): its field values, one vector per address it involves.
 */
import { addressesOf, fieldHex, type StoredSettlement } from '../store/index.js'
import { FILTER_FIELDS } from './events-query.js'

const ADDRESS_INDEX = FILTER_FIELDS.indexOf('address')

/**
 * One vector of field values (lowercase hex without 0x, in `FILTER_FIELDS` order) per address the
 * settlement involves (payer, and recipient when it differs), differing only in the `address` value.
 */
export function fieldValuesOf(s: StoredSettlement): string[][] {
  const values = FILTER_FIELDS.map((field) => (field === 'address' ? '' : fieldHex(s, field)))
  return addressesOf(s).map((address) => {
    const variant = [...values]
    variant[ADDRESS_INDEX] = address
    return variant
  })
}
