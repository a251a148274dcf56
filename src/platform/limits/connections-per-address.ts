/**
 * Open connections per client address, for a cap checked before a connection is accepted. The address
 * is the client's key from platform/http clientAddress (X-Forwarded-For behind TRUSTED_PROXIES, IPv6 by /64).
 */
export class ConnectionsPerAddress {
  readonly #open = new Map<string, number>()

  constructor(readonly max: number) {}

  /** Whether one more connection from `address` stays within the cap. */
  admits(address: string): boolean {
    return (this.#open.get(address) ?? 0) < this.max
  }

  holds(address: string): boolean {
    return this.#open.has(address)
  }

  add(address: string): void {
    this.#open.set(address, (this.#open.get(address) ?? 0) + 1)
  }

  remove(address: string): void {
    const left = (this.#open.get(address) ?? 1) - 1
    if (left > 0) this.#open.set(address, left)
    else this.#open.delete(address)
  }
}
