/**
 * Chain reads kept until the chain moves: every wallet asking the same nonce, balance or fee between two
 * blocks costs one eth_call, and askers at the same moment share it. The balance watch clears everything
 * when it sees a new head; a mined or failed submission clears its owner's entries at once, so the wallet
 * told of it reads the nonce it has now. A failed read is not kept.
 */
const MAX_ENTRIES = 100_000

export class HeadCache {
  readonly #entries = new Map<string, Promise<unknown>>()

  /** `key` names the read and everything it depends on, addresses included (lower case). */
  read<T>(key: string, load: () => Promise<T>): Promise<T> {
    const kept = this.#entries.get(key) as Promise<T> | undefined
    if (kept) return kept
    // A head that stops moving (a node outage) must not let the entries grow without end.
    if (this.#entries.size >= MAX_ENTRIES) this.#entries.clear()
    const entry = load()
    this.#entries.set(key, entry)
    entry.catch(() => this.#entries.get(key) === entry && this.#entries.delete(key))
    return entry
  }

  clear(): void {
    this.#entries.clear()
  }

  /** Drops the entries whose key names `address`. */
  forget(address: string): void {
    for (const key of this.#entries.keys()) if (key.includes(address)) this.#entries.delete(key)
  }
}
