import type { LedgerEntry } from './accounts.js';
import type { AccountStatus, Tier } from './config.js';
import type { Fault, FaultEndpoint, HeldRequest } from './faults.js';
import type { EmulatorState } from './state.js';
import type { DeliveryRow } from './webhooks.js';

/** A fault as `POST /__emulator/faults` takes it; every field is optional. */
export interface FaultInput {
  endpoint?: FaultEndpoint;
  count?: number;
  status?: number;
  code?: string;
  message?: string;
  when?: 'before' | 'after';
  reset?: boolean;
  delayMs?: number;
  /** Hold each matching request until `faults.release()` (at most 60 s), then apply the rest. */
  hold?: boolean;
}

/** `GET /__emulator/accounts/:id`. */
export interface AccountView {
  id: string;
  tier: Tier;
  status: AccountStatus;
  effective_status: AccountStatus;
  until: string | null;
  balance: number;
  spent: number;
  spent_this_cycle: number;
  granted_this_cycle: number;
  cycle_resets_at: string;
  in_flight: number;
  rate_limit: { per_minute: number; max_concurrent: number; cycle_budget: number } | null;
  ledger: LedgerEntry[];
}

export interface AccountPatch {
  balance?: number;
  status?: AccountStatus;
  until?: string | null;
  tier?: Tier;
}

/** A control the emulator refused (the same answer `/__emulator/*` gives over HTTP). */
export class EmulatorControlError extends Error {
  override name = 'EmulatorControlError';
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The test controls (`/__emulator/*`) as calls: the same on `createEmulator` and on
 * `startEmulator`. Each goes through the router, so it is validated exactly as over HTTP; the
 * network checks (loopback peer, `Host`, `Origin`) do not apply, as the caller is the process
 * that owns the emulator.
 */
export interface EmulatorControls {
  /** The emulator clock (`/__emulator/clock`): link expiry, cycles, `until`, rate windows. */
  clock: {
    now(): Promise<Date>;
    advance(ms: number): Promise<Date>;
  };
  /** Injected failures (`/__emulator/faults`), consumed by the next matching requests. */
  faults: {
    add(fault: FaultInput | FaultInput[]): Promise<Fault[]>;
    list(): Promise<Fault[]>;
    clear(): Promise<void>;
    /**
     * The requests `hold` faults are holding, oldest first (`/__emulator/faults/held`). With
     * `min`, resolves once at least that many are held: the event to wait on before sending the
     * next request. It gives up after 60 s or on a reset or close; check the length it gives.
     */
    held(options?: { min?: number }): Promise<HeldRequest[]>;
    /** Lets the `count` oldest held requests go on (all by default); gives how many it released. */
    release(count?: number): Promise<number>;
  };
  /** The webhook delivery log (`/__emulator/deliveries`), one row per attempt. */
  deliveries: {
    list(query?: { generationId?: string; limit?: number }): Promise<DeliveryRow[]>;
    /**
     * Waits until the generation is terminal and every delivery chain it started has ended,
     * then gives its rows: the event to wait on instead of a timer. Rejects for an unknown id.
     */
    settled(generationId: string): Promise<DeliveryRow[]>;
  };
  /** Accounts (`/__emulator/accounts/:id`): balance, ledger, in-flight count; patch mid-test. */
  accounts: {
    get(id: string): Promise<AccountView>;
    update(id: string, patch: AccountPatch): Promise<AccountView>;
  };
  /** Back to the start state: the config's accounts, no generations, faults or deliveries, real time; held requests dropped. */
  reset(): Promise<void>;
}

/** The controls of the emulator `state` serves, called through its Web `handler` at `url`. */
export function emulatorControls(state: EmulatorState, handler: (request: Request) => Promise<Response>, url: string): EmulatorControls {
  const control = async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const init: RequestInit = { method };
    if (body !== undefined) {
      init.body = JSON.stringify(body);
      init.headers = { 'content-type': 'application/json' };
    }
    const res = await handler(new Request(`${url}/__emulator/${path}`, init));
    const json = (await res.json()) as Record<string, unknown>;
    if (!res.ok) throw new EmulatorControlError(res.status, String(json.error), String(json.message));
    return json as T;
  };
  return {
    clock: {
      now: async () => new Date((await control<{ now: string }>('GET', 'clock')).now),
      advance: async (ms) => new Date((await control<{ now: string }>('POST', 'clock', { advanceMs: ms })).now),
    },
    faults: {
      add: async (fault) => (await control<{ faults: Fault[] }>('POST', 'faults', fault)).faults,
      list: async () => (await control<{ faults: Fault[] }>('GET', 'faults')).faults,
      clear: async () => {
        await control('DELETE', 'faults');
      },
      held: async (options = {}) =>
        (await control<{ held: HeldRequest[] }>('GET', `faults/held${options.min === undefined ? '' : `?min=${options.min}`}`)).held,
      release: async (count) =>
        (await control<{ released: number }>('POST', 'faults/release', count === undefined ? {} : { count })).released,
    },
    deliveries: {
      list: async (query = {}) => {
        const q = new URLSearchParams();
        if (query.generationId !== undefined) q.set('generation_id', query.generationId);
        if (query.limit !== undefined) q.set('limit', String(query.limit));
        const qs = q.toString();
        return (await control<{ deliveries: DeliveryRow[] }>('GET', `deliveries${qs ? `?${qs}` : ''}`)).deliveries;
      },
      settled: async (generationId) => {
        if (!(await state.settled(generationId))) {
          throw new EmulatorControlError(404, 'NOT_FOUND', `No generation ${generationId} (or the emulator was reset meanwhile).`);
        }
        return state.webhooks.log.filter((r) => r.generation_id === generationId).map((r) => ({ ...r }));
      },
    },
    accounts: {
      get: (id) => control<AccountView>('GET', `accounts/${encodeURIComponent(id)}`),
      update: (id, patch) => control<AccountView>('PATCH', `accounts/${encodeURIComponent(id)}`, patch),
    },
    reset: async () => {
      await control('POST', 'reset');
    },
  };
}
