/**
 * The explorer replicas a client may use, and which one it uses now. Every replica indexes the same chain
 * on its own, and a cursor is a chain position, so a client may move between them at any moment: REST
 * pages continue and live subscriptions resume from their cursors.
 *
 * The client stays on one replica (REST and WebSocket alike) until a call or the socket fails there. The
 * next pick then probes every candidate's `/ready` in one round and takes, in order: a caught-up replica
 * other than the one that just failed, that one if it is caught up again, a lagging one, and last one that
 * did not answer; ties go to the next replica in the list after the failed one, so clients spread out
 * instead of all falling back to the first. A single replica is never probed.
 */
import type { Readiness } from './probe-ready.js'

export interface Replica {
  readonly baseUrl: string
  readonly wsUrl: string
}

const RANK: Record<Readiness, number> = { ready: 0, lagging: 2, down: 4 }

export class ReplicaPool {
  readonly replicas: readonly Replica[]
  #active: Replica | undefined
  #lastFailed: Replica | undefined
  /** One probe round shared by every pick made while it runs. */
  #probing: Promise<Map<Replica, Readiness>> | undefined

  constructor(
    replicas: readonly Replica[],
    private readonly probe: (replica: Replica) => Promise<Readiness>,
  ) {
    if (replicas.length === 0) throw new TypeError('an explorer client needs at least one base URL')
    this.replicas = replicas
  }

  /** The replica in use, once one has been picked and until it fails. */
  get active(): Replica | undefined {
    return this.#active
  }

  /**
   * The replica to use now: the active one unless `exclude` holds it, else one chosen from the others
   * (which becomes the active one). `undefined` when `exclude` holds every replica.
   */
  async pick(exclude?: ReadonlySet<Replica>): Promise<Replica | undefined> {
    const candidates = this.replicas.filter((replica) => !exclude?.has(replica))
    if (candidates.length === 0) return undefined
    if (this.#active && candidates.includes(this.#active)) return this.#active
    if (candidates.length === 1) return (this.#active = candidates[0])
    this.#probing ??= this.#probeAll().finally(() => (this.#probing = undefined))
    const readiness = await this.#probing
    if (this.#active && candidates.includes(this.#active)) return this.#active
    const start = this.#lastFailed ? this.replicas.indexOf(this.#lastFailed) + 1 : 0
    const order = (replica: Replica) => (this.replicas.indexOf(replica) - start + this.replicas.length) % this.replicas.length
    const rank = (replica: Replica) => RANK[readiness.get(replica) ?? 'down'] + (replica === this.#lastFailed ? 1 : 0)
    const chosen = [...candidates].sort((a, b) => rank(a) - rank(b) || order(a) - order(b))[0]!
    this.#active = chosen
    return chosen
  }

  /** A call or the socket failed on `replica`: the next pick chooses again and prefers another. */
  failed(replica: Replica): void {
    this.#lastFailed = replica
    if (this.#active === replica) this.#active = undefined
  }

  async #probeAll(): Promise<Map<Replica, Readiness>> {
    const answers = await Promise.all(this.replicas.map((replica) => this.probe(replica)))
    return new Map(this.replicas.map((replica, i) => [replica, answers[i]!]))
  }
}
