/**
 * Which completed records' links this ledger instance has seen the service sign (a read, a
 * webhook, a submit answered in this process). A record not in it gets one read before its links
 * are served: the service may have forgotten it since another process recorded them (its records
 * reset), and a link the ledger cannot vouch for is a broken image. Bounded: the least recently
 * confirmed go first, and a forgotten one costs one more read, never a wrong answer.
 */
export class ConfirmedLinks {
  readonly #keys = new Set<string>();
  readonly #max: number;

  constructor(maxEntries = 10_000) {
    this.#max = Math.max(1, maxEntries);
  }

  has(key: string): boolean {
    if (!this.#keys.has(key)) return false;
    // Set order is recency order: re-inserting marks the key as recently used.
    this.#keys.delete(key);
    this.#keys.add(key);
    return true;
  }

  add(key: string): void {
    this.#keys.delete(key);
    this.#keys.add(key);
    for (const oldest of this.#keys) {
      if (this.#keys.size <= this.#max) break;
      this.#keys.delete(oldest);
    }
  }
}
