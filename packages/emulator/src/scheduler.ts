import { monotonic } from './clock.js';

interface Task {
  at: number;
  seq: number;
  fn: () => void;
}

/**
 * One timer for the whole emulator, over a min-heap of due tasks: 10,000 tracked
 * generations cost 10,000 heap entries, not 10,000 live timers.
 */
export class Scheduler {
  private heap: Task[] = [];
  private seq = 0;
  private timer: NodeJS.Timeout | null = null;
  private timerAt = Infinity;

  /** Runs `fn` at monotonic time `at` (ms). */
  at(at: number, fn: () => void): void {
    const task = { at, seq: this.seq++, fn };
    const h = this.heap;
    h.push(task);
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.less(h[i] as Task, h[p] as Task)) break;
      [h[i], h[p]] = [h[p] as Task, h[i] as Task];
      i = p;
    }
    if (at < this.timerAt) this.arm();
  }

  /** Runs every task already due; request handlers call it so reads never see stale state. */
  runDue(): void {
    const now = monotonic();
    while (this.heap.length > 0 && (this.heap[0] as Task).at <= now) {
      const t = this.pop();
      try {
        t.fn();
      } catch (e) {
        process.emitWarning(`mediagen-emulator: scheduled task failed: ${(e as Error).message}`);
      }
    }
  }

  clear(): void {
    this.heap = [];
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.timerAt = Infinity;
  }

  get size(): number {
    return this.heap.length;
  }

  private less(a: Task, b: Task): boolean {
    return a.at < b.at || (a.at === b.at && a.seq < b.seq);
  }

  private pop(): Task {
    const h = this.heap;
    const top = h[0] as Task;
    const last = h.pop() as Task;
    if (h.length > 0) {
      h[0] = last;
      let i = 0;
      for (;;) {
        const l = i * 2 + 1;
        const r = l + 1;
        let m = i;
        if (l < h.length && this.less(h[l] as Task, h[m] as Task)) m = l;
        if (r < h.length && this.less(h[r] as Task, h[m] as Task)) m = r;
        if (m === i) break;
        [h[i], h[m]] = [h[m] as Task, h[i] as Task];
        i = m;
      }
    }
    return top;
  }

  private arm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.timerAt = Infinity;
    const next = this.heap[0];
    if (!next) return;
    this.timerAt = next.at;
    this.timer = setTimeout(
      () => {
        this.timer = null;
        this.timerAt = Infinity;
        this.runDue();
        this.arm();
      },
      Math.max(0, next.at - monotonic()),
    );
  }
}
