import { ENDPOINTS, type EndpointName, type ErrorCode } from '@mediagen/core/wire';
import { FAULT_MAX_COUNT, FAULT_MAX_DELAY_MS, FAULT_MESSAGE_MAX } from './bounds.js';
import { EmulatorHttpError } from './errors.js';

/** An endpoint of the contract's table (`ENDPOINTS`), or `any`. */
export type FaultEndpoint = EndpointName | 'any';

export interface Fault {
  endpoint: FaultEndpoint;
  count: number;
  /** HTTP status to answer with; omitted (with `reset` false) means only `delayMs` applies. */
  status?: number;
  code?: string;
  message?: string;
  when: 'before' | 'after';
  reset: boolean;
  delayMs: number;
  /**
   * Holds the request at the point `delayMs` applies until a test releases it
   * (`POST /__emulator/faults/release`), for at most `FAULT_MAX_DELAY_MS`; then `delayMs`,
   * `status` and `reset` apply as usual.
   */
  hold: boolean;
}

const FAULT_ENDPOINTS: readonly FaultEndpoint[] = [...(Object.keys(ENDPOINTS) as EndpointName[]), 'any'];
const KEYS = ['endpoint', 'count', 'status', 'code', 'message', 'when', 'reset', 'delayMs', 'hold'];

/** The code an injected status gets when the fault names none (any code of the table). */
const DEFAULT_CODE: Record<number, ErrorCode> = {
  400: 'INVALID_BODY',
  401: 'KEY_INVALID',
  402: 'INSUFFICIENT_CREDITS',
  403: 'API_DISABLED',
  404: 'NOT_FOUND',
  409: 'IDEMPOTENT_REQUEST_IN_FLIGHT',
  422: 'INVALID_BODY',
  429: 'RATE_LIMIT',
  500: 'INTERNAL_ERROR',
  502: 'INTERNAL_ERROR',
  503: 'PROVIDER_DOWN',
  504: 'INTERNAL_ERROR',
};

const CODE = /^[A-Z][A-Z0-9_]{0,63}$/;

const bad = (msg: string): EmulatorHttpError => new EmulatorHttpError('INVALID_BODY', msg, { details: { field: 'fault' } });

export function parseFault(raw: unknown): Fault {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw bad('A fault is a JSON object.');
  const o = raw as Record<string, unknown>;
  for (const k of Object.keys(o)) if (!KEYS.includes(k)) throw bad(`Unknown fault key "${k}" (allowed: ${KEYS.join(', ')}).`);
  const endpoint = (o.endpoint === undefined ? 'any' : o.endpoint) as FaultEndpoint;
  if (!FAULT_ENDPOINTS.includes(endpoint)) throw bad(`fault.endpoint must be one of ${FAULT_ENDPOINTS.join(', ')}.`);
  const count = o.count === undefined ? 1 : o.count;
  if (typeof count !== 'number' || !Number.isInteger(count) || count < 1 || count > FAULT_MAX_COUNT) {
    throw bad(`fault.count must be a whole number from 1 to ${FAULT_MAX_COUNT}.`);
  }
  const when = o.when === undefined ? 'before' : o.when;
  if (when !== 'before' && when !== 'after') throw bad('fault.when must be "before" or "after".');
  const reset = o.reset === undefined ? false : o.reset;
  if (typeof reset !== 'boolean') throw bad('fault.reset must be a boolean.');
  const delayMs = o.delayMs === undefined ? 0 : o.delayMs;
  // Bounded: a timer past 2^31 - 1 ms fires at once (Node's overflow), and a delay holds a socket.
  if (typeof delayMs !== 'number' || !Number.isFinite(delayMs) || delayMs < 0 || delayMs > FAULT_MAX_DELAY_MS) {
    throw bad(`fault.delayMs must be a number from 0 to ${FAULT_MAX_DELAY_MS}.`);
  }
  const hold = o.hold === undefined ? false : o.hold;
  if (typeof hold !== 'boolean') throw bad('fault.hold must be a boolean.');
  let status = o.status as number | undefined;
  // A fault is an error answer: 4xx or 5xx (a 1xx or a 2xx with an error body would corrupt the exchange).
  if (status !== undefined && (typeof status !== 'number' || !Number.isInteger(status) || status < 400 || status > 599)) {
    throw bad('fault.status must be an HTTP error status (400-599).');
  }
  if (o.code !== undefined && (typeof o.code !== 'string' || !CODE.test(o.code))) {
    throw bad('fault.code must be an error code: capitals, digits and underscores, at most 64 characters.');
  }
  if (o.message !== undefined && (typeof o.message !== 'string' || o.message.length > FAULT_MESSAGE_MAX)) {
    throw bad(`fault.message must be a string of at most ${FAULT_MESSAGE_MAX} characters.`);
  }
  if (status === undefined && o.code !== undefined) status = 500;
  const fault: Fault = { endpoint, count, when, reset, delayMs, hold };
  if (status !== undefined) {
    fault.status = status;
    fault.code = (o.code as string | undefined) ?? DEFAULT_CODE[status] ?? 'INTERNAL_ERROR';
  }
  if (typeof o.message === 'string') fault.message = o.message;
  return fault;
}

/** Injected failures, consumed in order: the next `count` matching requests get each one. */
export class Faults {
  private list: Fault[] = [];

  add(f: Fault): void {
    this.list.push(f);
  }

  take(endpoint: EndpointName): Fault | null {
    if (this.list.length === 0) return null;
    const i = this.list.findIndex((f) => f.endpoint === endpoint || f.endpoint === 'any');
    if (i < 0) return null;
    const f = this.list[i] as Fault;
    f.count--;
    if (f.count <= 0) this.list.splice(i, 1);
    return f;
  }

  get size(): number {
    return this.list.length;
  }

  all(): Fault[] {
    return this.list.map((f) => ({ ...f }));
  }

  clear(): void {
    this.list = [];
  }
}

/**
 * Where a request was held: the endpoint the fault matched, or `render` for a generation whose
 * prompt holds it (`[[hold]]`) before its terminal step.
 */
export type HeldEndpoint = EndpointName | 'render';

/** A request a `hold` fault is holding, or a generation `[[hold]]` keeps in flight (`GET /__emulator/faults/held`). */
export interface HeldRequest {
  endpoint: HeldEndpoint;
  /** The `X-Request-Id` (and `request_id`) its answer will carry; for `render`, its submit's. */
  request_id: string;
  /** For `render`: the generation kept `processing`. */
  generation_id?: string;
}

/** How a hold ended: released (by the test, or at the time cap) or dropped (reset or close). */
export type HoldEnd = 'released' | 'dropped';

interface Held {
  view: HeldRequest;
  end(how: HoldEnd): void;
}

/**
 * Requests held by `hold` faults, oldest first, and the tests waiting for them. Bounded: each
 * hold ends at the latest after `FAULT_MAX_DELAY_MS` (as released), a wait too, and a reset or
 * close of the emulator ends them all at once, so nothing waits forever.
 */
export class HeldRequests {
  private held: Held[] = [];
  private waiters = new Set<{ min: number; done(): void }>();
  private delayed = new Set<(how: HoldEnd) => void>();

  /** Holds until released or dropped; resolves with how it ended. */
  hold(endpoint: HeldEndpoint, requestId: string, generationId?: string): Promise<HoldEnd> {
    return new Promise((resolve) => {
      const entry: Held = {
        view: { endpoint, request_id: requestId, ...(generationId !== undefined && { generation_id: generationId }) },
        end: (how) => {
          clearTimeout(timer);
          const i = this.held.indexOf(entry);
          if (i >= 0) this.held.splice(i, 1);
          resolve(how);
        },
      };
      const timer = setTimeout(() => entry.end('released'), FAULT_MAX_DELAY_MS);
      this.held.push(entry);
      for (const w of [...this.waiters]) if (this.held.length >= w.min) w.done();
    });
  }

  /** Releases the `count` oldest held requests (all by default); gives how many it released. */
  release(count = Number.POSITIVE_INFINITY): number {
    const ending = this.held.slice(0, count);
    for (const h of ending) h.end('released');
    return ending.length;
  }

  list(): HeldRequest[] {
    return this.held.map((h) => ({ ...h.view }));
  }

  get size(): number {
    return this.held.length;
  }

  /**
   * Resolves once at least `min` requests are held, or after `FAULT_MAX_DELAY_MS`, or when the
   * emulator resets or closes, whichever comes first: the caller reads the list then.
   */
  whenHeld(min: number): Promise<void> {
    if (this.held.length >= min) return Promise.resolve();
    return new Promise((resolve) => {
      const waiter = {
        min,
        done: () => {
          clearTimeout(timer);
          this.waiters.delete(waiter);
          resolve();
        },
      };
      const timer = setTimeout(waiter.done, FAULT_MAX_DELAY_MS);
      this.waiters.add(waiter);
    });
  }

  /**
   * A fault's `delayMs`: ends as released after `ms`, or as dropped by a reset or close (so no
   * delayed request outlives the emulator by up to `FAULT_MAX_DELAY_MS`). Not listed as held.
   */
  delay(ms: number): Promise<HoldEnd> {
    return new Promise((resolve) => {
      const end = (how: HoldEnd) => {
        clearTimeout(timer);
        this.delayed.delete(end);
        resolve(how);
      };
      const timer = setTimeout(() => end('released'), ms);
      this.delayed.add(end);
    });
  }

  /** Reset or close: every held or delayed request ends without effect (its connection is reset), every waiter wakes. */
  dropAll(): void {
    for (const h of this.held.slice()) h.end('dropped');
    for (const end of [...this.delayed]) end('dropped');
    for (const w of [...this.waiters]) w.done();
  }
}
