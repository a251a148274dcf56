/** Change handlers per key (a charge, an order), for the pages that follow one thing live. */
export interface Watchers {
  /** Calls `onChange` at every `notify(key)`; returns the remover. */
  watch(key: string, onChange: () => void): () => void
  notify(key: string): void
  notifyAll(): void
}

export function createWatchers(): Watchers {
  const byKey = new Map<string, Set<() => void>>()
  const call = (handlers: Iterable<() => void>) => {
    for (const handler of handlers) handler()
  }
  return {
    watch(key, onChange) {
      const set = byKey.get(key) ?? new Set()
      byKey.set(key, set.add(onChange))
      return () => {
        set.delete(onChange)
        if (set.size === 0 && byKey.get(key) === set) byKey.delete(key)
      }
    },
    notify: (key) => call(byKey.get(key) ?? []),
    notifyAll: () => call([...byKey.values()].flatMap((set) => [...set])),
  }
}
