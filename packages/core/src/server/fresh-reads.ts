import type { Generation } from '../types';
import { pollIntervalMs } from '../wire/timing';

/**
 * How long a status read stands for the service's state, for a stream's first step: the
 * contract's shortest polling interval (2 s, images). A browser polling the status route reads
 * no more often, so a stream (re)opened within it is told nothing a new read would tell it.
 */
export const FRESH_READ_MS = pollIntervalMs('image');

/** Past this many remembered reads, the expired ones are dropped on the next read. */
const SWEEP_AT = 256;

interface Read {
  /** When the read was sent: what it answers is at least this new. */
  at: number;
  /** Its answer, once it came. */
  value: Generation | undefined;
  generation: Promise<Generation>;
}

/**
 * The status reads a handler's streams make, one generation at a time: every stream opened
 * while a read of its generation is in flight joins that read, and one opened within
 * `FRESH_READ_MS` of a read's start reuses its answer. A browser reconnecting in a loop (or 300
 * tabs opening at once) thus costs the service one read per generation per interval, not one
 * per connect. A failed read is not kept: the next stream reads again.
 */
export class FreshReads {
  readonly #reads = new Map<string, Read>();
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /** `read()`'s answer for `id`, or a recent or in-flight one's. */
  read(id: string, read: () => Promise<Generation>): Promise<Generation> {
    const known = this.#reads.get(id);
    const now = this.#now();
    if (known && (!known.value || now - known.at < FRESH_READ_MS)) return known.generation;
    this.#sweep(now);
    const entry: Read = { at: now, value: undefined, generation: read() };
    // Deleted and set again: the map stays in the order reads were sent, oldest first, for the sweep.
    this.#reads.delete(id);
    this.#reads.set(id, entry);
    entry.generation.then(
      (generation) => {
        entry.value = generation;
      },
      () => {
        if (this.#reads.get(id) === entry) this.#reads.delete(id);
      },
    );
    return entry.generation;
  }

  /** A settled read of `id` still fresh: what it answered and how much of `FRESH_READ_MS` is left. */
  recent(id: string): { generation: Generation; leftMs: number } | undefined {
    const known = this.#reads.get(id);
    const leftMs = known?.value ? FRESH_READ_MS - (this.#now() - known.at) : 0;
    return known?.value && leftMs > 0 ? { generation: known.value, leftMs } : undefined;
  }

  /**
   * Drops the expired answers, oldest first (the map is in the order reads were sent), so it
   * holds the last interval's reads and those still in flight (each ends by the client's deadline).
   */
  #sweep(now: number): void {
    if (this.#reads.size < SWEEP_AT) return;
    for (const [id, read] of this.#reads) {
      if (now - read.at < FRESH_READ_MS) break;
      if (read.value) this.#reads.delete(id);
    }
  }
}
