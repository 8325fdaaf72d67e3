import { TIMER_MAX_MS } from '../util/sleep';

/**
 * One attempt's timeout: `signal` aborts once the time has run out (`expired`) or the caller's
 * signal fired. `end()` when the attempt is over.
 *
 * Attempts with the client's timeout and no signal of their own that begin within 1% of it
 * (at most 1 s, at most 64 attempts: fetch copies a signal's listener list on every request)
 * share one: a per-request AbortController and timer cost more than the rest of the client
 * on a fast GET (measured in `pnpm bench`). When the shared timer fires, every attempt of the
 * group still pending has run at least the timeout (at most 1% more), and they are cancelled
 * together; finished ones are unaffected.
 */
export class Deadline {
  readonly #controller = new AbortController();
  readonly signal = this.#controller.signal;
  readonly #timer: ReturnType<typeof setTimeout>;
  readonly #onAbort: (() => void) | undefined;
  readonly #caller: AbortSignal | undefined;
  declare readonly closesAt: number;
  expired = false;
  pending = 1;
  joined = 1;

  constructor(timeoutMs: number, caller: AbortSignal | undefined, shared: boolean) {
    const width = shared ? Math.min(timeoutMs / 100, 1_000) : 0;
    this.closesAt = Date.now() + width;
    this.#caller = caller;
    this.#timer = setTimeout(
      () => {
        if (this.pending === 0) return;
        this.expired = true;
        this.#controller.abort();
      },
      Math.min(timeoutMs + width, TIMER_MAX_MS),
    );
    if (caller) caller.addEventListener('abort', (this.#onAbort = () => this.#controller.abort(caller.reason)), { once: true });
    // A shared timer may outlive its requests: pending ones keep the process alive by their sockets.
    if (shared) (this.#timer as { unref?: () => void }).unref?.();
  }

  end(): void {
    if (--this.pending === 0 && this.closesAt <= Date.now()) clearTimeout(this.#timer);
    if (this.#onAbort) this.#caller?.removeEventListener('abort', this.#onAbort);
  }
}

/** The deadlines of one transport (nothing is shared between clients). */
export class Deadlines {
  readonly #timeoutMs: number;
  #group: Deadline | undefined;

  constructor(timeoutMs: number) {
    this.#timeoutMs = timeoutMs;
  }

  start(timeoutMs: number | undefined, caller: AbortSignal | undefined): Deadline {
    if (caller || (timeoutMs !== undefined && timeoutMs !== this.#timeoutMs)) {
      return new Deadline(timeoutMs ?? this.#timeoutMs, caller, false);
    }
    const group = this.#group;
    if (group && group.closesAt >= Date.now() && group.joined < 64 && !group.expired) {
      group.pending++;
      group.joined++;
      return group;
    }
    this.#group = new Deadline(this.#timeoutMs, undefined, true);
    return this.#group;
  }
}
