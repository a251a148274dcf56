/**
 * The first value of a walk, closing it. A walk left open after its first value (a generator over an
 * lmdb-js range, dropped after `.next()`) keeps its cursor and pins its read snapshot until it is
 * collected; leaving the loop early calls the walk's `return()`, which releases them at once.
 */
export function firstOf<T>(walk: Iterable<T>): T | undefined {
  for (const value of walk) return value
  return undefined
}
