/**
 * Sliding one-minute window over the last `limit` hits, kept in a ring buffer: checking and
 * recording are O(1), and memory per account is fixed whatever the traffic.
 */
export class MinuteWindow {
  private readonly times: Float64Array;
  private head = 0;
  private size = 0;

  constructor(readonly limit: number) {
    this.times = new Float64Array(Math.max(1, limit));
  }

  /** Seconds to wait before the next hit is allowed; 0 when it is allowed now. */
  retryAfter(now: number): number {
    if (this.size < this.limit) return 0;
    const oldest = this.times[this.head] ?? 0;
    const wait = oldest + 60_000 - now;
    return wait > 0 ? Math.ceil(wait / 1000) : 0;
  }

  record(now: number): void {
    this.times[this.head] = now;
    this.head = (this.head + 1) % this.limit;
    if (this.size < this.limit) this.size++;
  }

  remaining(now: number): number {
    let used = 0;
    for (let i = 0; i < this.size; i++) {
      const t = this.times[(this.head - 1 - i + this.limit * 2) % this.limit] ?? 0;
      if (now - t >= 60_000) break;
      used++;
    }
    return Math.max(0, this.limit - used);
  }
}
