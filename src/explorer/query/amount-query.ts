/**
 * `/events` with `minAmount`/`maxAmount`. With no field filter but `token` (the compliance-report
 * case), the amount index (store/amounts.ts) gives the exact count of the amount range at once, and
 * the page comes from whichever is cheapest:
 * - walking the token's index (or every settlement) in chain order, checking each amount read from
 *   the record's bytes: about (limit + 1) / selectivity candidates, so few when the range is wide;
 * - merging, in chain order, the few amount classes (64 per power of two) a narrow range touches, the
 *   token's or every token's: about (limit + 1) × their settlements / the range's, a few dozen
 *   candidates at 1 % where the walk above reads ~2,100 (~2,600 without a token);
 * - listing the range from the amount index and sorting it into chain order: its size, so few when
 *   the range holds few settlements.
 * Within block or time bounds the count must respect them too: the cheaper of the two walks gives
 * count and page at once. With other field filters, the amount is one more check on the candidates
 * of the most selective field's index (run-events-query.ts `intersect`).
 */
import { amountClasses, amountClassWalk, countAmountRange, amountRangePks, indexValuePk, readCount, storedAmount, type AmountClass } from '../store/index.js'
import type { Store } from '../store/index.js'
import type { KeyRange } from './block-range.js'
import { amountInRange, type EventsQuery, type SettlementFilter } from './events-query.js'
import { indexCount, indexWalk, testedInGroups, testedOneByOne, type FieldFilter } from './field-index.js'
import { primaryCount, primaryKeys } from './primary-walk.js'

export interface AmountBounds {
  min: bigint
  max: bigint
}

const MAX_AMOUNT = (1n << 256n) - 1n

/** The query's amount bounds, or `undefined` when it has none. */
export function amountBounds(filter: SettlementFilter): AmountBounds | undefined {
  if (filter.minAmount === undefined && filter.maxAmount === undefined) return undefined
  return { min: BigInt(filter.minAmount ?? 0), max: filter.maxAmount === undefined ? MAX_AMOUNT : BigInt(filter.maxAmount) }
}

/** Whether the amount index answers this query (no field filter other than `token`). */
export const usesAmountIndex = (filters: FieldFilter[]) => filters.every((f) => f.field === 'token')

/**
 * A listed entry costs about three walked candidates: at 1M settlements, listing and sorting 3,323
 * entries took 6–18 ms and walking 2,100 candidates with their amounts 3–15 ms (a loaded 2-core machine).
 */
const LIST_WEIGHT = 3

/** Amount classes a page may merge: a narrow range touches a few, a wide one is walked instead. */
const MAX_MERGED_CLASSES = 16

interface AmountPlan {
  /** List the amount index and sort, merge the classes the range touches in chain order, or walk in chain order. */
  how: 'list' | 'merge' | 'walk'
  /** With `merge`: the classes. */
  classes: TokenClass[]
  /** Candidates either way reads: what decides where the query runs (query-cost.ts). */
  cost: number
  /** Matches in the amount range, block bounds aside. */
  inAmount: number
}

function tokenKeys(store: Store, token: FieldFilter | undefined): Buffer[] {
  if (token) return [token.key]
  return [...store.tokens.getKeys()].map((key) => key as Buffer)
}

/** A token's amount class. */
type TokenClass = AmountClass & { token: Buffer }

/** The populated classes an amount range touches, of each token; `undefined` past MAX_MERGED_CLASSES in all. */
function classesOf(store: Store, tokens: Buffer[], min: bigint, max: bigint): TokenClass[] | undefined {
  const found: TokenClass[] = []
  for (const token of tokens) {
    const classes = amountClasses(store, token, min, max, MAX_MERGED_CLASSES - found.length)
    if (!classes) return undefined
    for (const c of classes) found.push({ ...c, token })
  }
  return found
}

export function amountPlan(store: Store, q: EventsQuery, range: KeyRange, token: FieldFilter | undefined): AmountPlan {
  const { min, max } = amountBounds(q)!
  const inAmount = tokenKeys(store, token).reduce((sum, key) => sum + countAmountRange(store, key, min, max), 0)
  const inScope = token ? indexCount(store, token, range) : range.bounded ? primaryCount(store, range) : readCount(store)
  // Unbounded, the total is known: walking costs one page's candidates. Bounded, either way counts.
  const perPage = (candidates: number) => (range.bounded ? candidates : Math.ceil(((q.limit + 1) * candidates) / Math.max(inAmount, 1)))
  const options: { how: AmountPlan['how']; cost: number; classes: TokenClass[] }[] = [
    { how: 'walk', cost: perPage(inScope), classes: [] },
    { how: 'list', cost: inAmount * LIST_WEIGHT, classes: [] },
  ]
  const classes = classesOf(store, tokenKeys(store, token), min, max)
  // A merge opens one cursor per class (a few candidates' worth each) and reads the classes' candidates.
  if (classes) options.push({ how: 'merge', cost: perPage(classes.reduce((sum, c) => sum + c.count, 0)) + 4 * classes.length, classes })
  const best = options.reduce((a, b) => (b.cost < a.cost ? b : a))
  return { ...best, inAmount }
}

/** Total and up to `limit + 1` primary keys of the page, for a query the amount index answers. */
export function amountQuery(store: Store, q: EventsQuery, range: KeyRange, page: KeyRange | undefined, token: FieldFilter | undefined): { total: number; found: Buffer[] } {
  const plan = amountPlan(store, q, range, token)
  if (plan.how === 'list') {
    const { min, max } = amountBounds(q)!
    const inRange = (pk: Buffer, r: KeyRange) => Buffer.compare(pk, r.low) >= 0 && Buffer.compare(pk, r.high) < 0
    const pks: Buffer[] = []
    for (const key of tokenKeys(store, token)) for (const pk of amountRangePks(store, key, min, max)) if (inRange(pk, range)) pks.push(Buffer.from(pk))
    pks.sort(q.order === 'asc' ? Buffer.compare : (a, b) => Buffer.compare(b, a))
    const found = page ? pks.filter((pk) => inRange(pk, page)).slice(0, q.limit + 1) : []
    return { total: pks.length, found }
  }
  const found: Buffer[] = []
  let total = 0
  // Unbounded, the page is all the walk needs; bounded, the walk also counts the whole range.
  const walked = range.bounded ? range : page
  if (!walked) return { total: plan.inAmount, found }
  const candidates = plan.how === 'merge' ? mergeClasses(store, plan.classes, walked, q.order) : chainOrder(store, walked, q.order, token)
  const inAmount = (record: Buffer) => amountInRange(storedAmount(record), q)
  // Bounded, the walk reads every candidate, which groups read faster; a page stops after its own.
  for (const [pk, matches] of range.bounded ? testedInGroups(store, candidates, inAmount) : testedOneByOne(store, candidates, inAmount)) {
    if (!matches) continue
    total++
    const inPage = !range.bounded || !page || (Buffer.compare(pk, page.low) >= 0 && Buffer.compare(pk, page.high) < 0)
    if (inPage && page && found.length <= q.limit) found.push(Buffer.from(pk))
    if (!range.bounded && found.length > q.limit) break
  }
  return { total: range.bounded ? total : plan.inAmount, found }
}

/** Primary keys of the token's settlements (or of all) inside a range, in chain order; each amount needs checking. */
function* chainOrder(store: Store, range: KeyRange, order: 'asc' | 'desc', token: FieldFilter | undefined): Generator<[Buffer, boolean]> {
  if (!token) {
    for (const pk of primaryKeys(store, range, order)) yield [pk, true]
    return
  }
  for (const value of indexWalk(store, token, range, order)) yield [indexValuePk(value), true]
}

/**
 * The settlements of a few amount classes inside a range, in chain order: one walk per class, the next
 * key taken from whichever is first. Only the classes the range's bounds cut through need amounts checked.
 */
function* mergeClasses(store: Store, classes: TokenClass[], range: KeyRange, order: 'asc' | 'desc'): Generator<[Buffer, boolean]> {
  const walks = classes.map((c) => ({ walk: amountClassWalk(store, c.token, c.amountClass, range.low, range.high, order), check: !c.inside, head: undefined as Buffer | undefined }))
  for (const w of walks) w.head = w.walk.next().value ?? undefined
  const direction = order === 'asc' ? 1 : -1
  for (;;) {
    let next: (typeof walks)[number] | undefined
    for (const w of walks) if (w.head && (!next || Buffer.compare(w.head, next.head!) * direction < 0)) next = w
    if (!next) return
    yield [next.head!, next.check]
    next.head = next.walk.next().value ?? undefined
  }
}
