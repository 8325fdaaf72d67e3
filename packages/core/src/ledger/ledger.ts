import type { MediaGenClient } from '../client';
import { ConfigurationError, InvalidRequestError, isMediaGenError, NotFoundError } from '../errors';
import { generationFromEvent } from '../events/generation-from-event';
import { isExpired, parseOutputLink } from '../links/output-link';
import type { TypedGenerateParams } from '../params/registry';
import { routeError } from '../server/route-error';
import type { GenerateParams, Generation, GenerationError, SubmitResponse } from '../types';
import { isIdempotencyKey } from '../util/idempotency-key';
import { oneLine } from '../util/one-line';
import { isPlausibleId } from '../util/plausible-id';
import type { WebhookEvent } from '../webhooks/verify';
import { pollIntervalMs } from '../wire/timing';
import { ConfirmedLinks } from './confirmed-links';
import type { OutputSink } from './output-sink';
import { precedence } from './precedence';
import { type GenerationRecord, isTerminalStatus, newRecord, type RecordPatch } from './record';
import type { GenerationStore, ListCursor } from './store';
import { type LedgerGeneration, viewOf } from './view';

export interface GenerationLedgerOptions {
  client: MediaGenClient;
  store: GenerationStore;
  /**
   * Called once per generation when it reaches `completed` or `failed` (a refused submit
   * included), after its outputs were persisted. Throwing leaves it to be called again by a
   * later `reconcile()`; it runs again only if the process dies before it returned.
   */
  onTerminal?(generation: LedgerGeneration): unknown;
  /** Copies each completed generation's outputs into storage the app owns, before its links expire. */
  persistOutputs?: OutputSink;
  /** Names this instance in leases. Default: a random UUID. */
  instanceId?: string;
  /** How long an instance holds a record it follows; a crashed holder's lease lapses after it. Default 60 s. */
  leaseMs?: number;
  /** A link expiring within this margin is signed afresh before it is served. Default 10 min. */
  linkMarginMs?: number;
  /**
   * Completed records whose links this instance remembers as confirmed by the service. Links
   * recorded by another process (or before a restart) are read once before they are first
   * served, as the service may have forgotten them. Default 10 000.
   */
  confirmedLinksMax?: number;
  /** Records the reconciler takes per pass. Default 100. */
  batchSize?: number;
  /**
   * Pause between reconciler passes (`start()`) when the last one found less than a full batch;
   * after a full batch the next pass starts at once. Each record keeps its own poll interval.
   * Default 500 ms.
   */
  tickMs?: number;
  /** The ledger's clock (ms). Default `Date.now`. Tests move it with the emulator's clock. */
  now?(): number;
  /** Timers for `start()`. Default the global ones. */
  setTimeout?(callback: () => void, ms: number): unknown;
  clearTimeout?(timer: unknown): void;
  /** Sees failures the ledger recovers from (a poll or resend that failed, a handler that threw). */
  onError?(error: unknown, record?: LedgerGeneration): void;
}

export interface SubmitOptions {
  /** The key for this intent (a browser's, scoped to its user). Default: a random UUID. */
  idempotencyKey?: string;
  signal?: AbortSignal;
}

export interface ListPage {
  generations: LedgerGeneration[];
  /** Pass as `cursor` for the next page; null on the last one. */
  next_cursor: string | null;
}

export interface ReconcileReport {
  /** Records the store answered as due (at most `batchSize`: a full batch means more wait). */
  due: number;
  /** Records taken this pass (their lease won). */
  followed: number;
  /** Status reads made. */
  polled: number;
  /** Intents sent again with their own key. */
  resent: number;
  /** Terminal states handed to `onTerminal`. */
  notified: number;
  /** Failures reported to `onError` while this pass followed its records (a resend or read that failed, a handover that threw). */
  errors: number;
}

export interface GenerationLedger {
  /**
   * Records the intent, sends it with its idempotency key, records the generation id. Resolves
   * with the record once the 202 is recorded. A failure that a resend may fix (5xx, network,
   * 409, 429) rejects but leaves the intent for `reconcile()` to resend with the same key; a
   * permanent one (4xx, invalid params) ends the intent `failed` and rejects.
   */
  submit(owner: string, params: TypedGenerateParams, options?: SubmitOptions): Promise<LedgerGeneration>;
  /** The owner's generation by `generation_id` (or idempotency key), links signed afresh when near expiry; undefined for anyone else. */
  get(owner: string, id: string): Promise<LedgerGeneration | undefined>;
  /** The owner's generations, newest first. */
  list(owner: string, options?: { limit?: number; cursor?: string | null }): Promise<ListPage>;
  /**
   * Records a generation submitted elsewhere (already accepted and billed, e.g. by a handler that
   * called `generations.create` itself), so the ledger follows it from here. A no-op when the
   * ledger knows the id. Prefer `submit`: only it records the intent before the call.
   */
  adopt(owner: string, submitted: SubmitResponse, params: GenerateParams): Promise<LedgerGeneration>;
  /** A verified webhook event (the receiver's `onEvent`): applied through the precedence rule. */
  applyEvent(event: WebhookEvent): Promise<LedgerGeneration | undefined>;
  /** A Generation read anywhere (a poll, `wait()`'s `onUpdate`): applied through the same rule. */
  apply(generation: Generation): Promise<LedgerGeneration | undefined>;
  /** `client.generations.wait` for the owner's generation, every status it sees applied. */
  wait(owner: string, id: string, options?: { signal?: AbortSignal; timeoutMs?: number }): Promise<LedgerGeneration>;
  /** One pass: resends unfinished intents, polls generations without news, hands over terminal states. */
  reconcile(): Promise<ReconcileReport>;
  /** Runs `reconcile()` every `tickMs` until `stop()`. */
  start(): void;
  stop(): Promise<void>;
}

const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 100;

/**
 * The generation ledger over a `GenerationStore` and a client: every submit is written before
 * it is sent, followed to its end across crashes, each terminal state handed to the app once,
 * and read back with links that work. One instance per process; several instances share a store.
 */
export function createGenerationLedger(options: GenerationLedgerOptions): GenerationLedger {
  const { client, store } = options;
  if (!client || !store) throw new ConfigurationError('createGenerationLedger needs { client, store }.');
  const me = options.instanceId ?? globalThis.crypto.randomUUID();
  const leaseMs = options.leaseMs ?? 60_000;
  const marginMs = options.linkMarginMs ?? 10 * 60_000;
  const batch = options.batchSize ?? 100;
  const tickMs = options.tickMs ?? 500;
  const now = options.now ?? Date.now;
  const setTimer = options.setTimeout ?? ((cb: () => void, ms: number) => globalThis.setTimeout(cb, ms));
  const clearTimer = options.clearTimeout ?? ((t: unknown) => globalThis.clearTimeout(t as Parameters<typeof clearTimeout>[0]));
  /** Records whose terminal state this instance is handing over right now. */
  const notifying = new Set<string>();
  const confirmed = new ConfirmedLinks(options.confirmedLinksMax);
  /** The report of the pass following each record right now, so its handovers and failures are counted there. */
  const following = new Map<string, ReconcileReport>();
  const report = (error: unknown, record?: GenerationRecord) => {
    const pass = record && following.get(record.key);
    if (pass) pass.errors++;
    try {
      options.onError?.(error, record && viewOf(record));
    } catch {
      // An observer's failure changes nothing.
    }
  };

  /** The contract's interval for the model's kind (image 2 s, video 4 s), from the cached list. */
  async function intervalFor(model: string): Promise<number> {
    const found = await client.models.find(model).catch(() => undefined);
    return pollIntervalMs(found?.kind);
  }

  /**
   * Applies what a source saw, through `precedence`, with compare-and-set: a lost race reads
   * again and decides again, so concurrent sources on any number of instances converge.
   */
  async function observe(record: GenerationRecord, generation: Generation): Promise<GenerationRecord> {
    // What the service just said about a completed generation: its links are good as of now.
    if (generation.status === 'completed') confirmed.add(record.key);
    let current: GenerationRecord | undefined = record;
    while (current) {
      const verdict = precedence(current.status, generation.status);
      if (verdict === 'stale') return current;
      let patch: RecordPatch;
      if (verdict === 'same') {
        // Nothing happened; only a completed record takes fresher links (a re-read signs anew).
        if (current.status !== 'completed' || !freshLinks(current.generation, generation)) return current;
        patch = { generation, unavailable: false };
      } else {
        const terminal = isTerminalStatus(generation.status);
        patch = {
          status: generation.status,
          generation_id: generation.generation_id,
          generation,
          next_check_at: terminal ? now() : now() + (await intervalFor(generation.model)),
        };
      }
      patch.updated_at = now();
      const updated = await store.update(current.key, current.version, patch);
      if (updated) {
        if (verdict === 'advance' && isTerminalStatus(updated.status)) await notify(updated);
        return updated;
      }
      current = await store.get(current.key);
    }
    return record;
  }

  /** Writes `patch` whatever the version (a field no other writer races on), retrying the CAS. */
  async function patchRecord(key: string, patch: (r: GenerationRecord) => RecordPatch | undefined): Promise<GenerationRecord | undefined> {
    for (;;) {
      const current = await store.get(key);
      if (!current) return undefined;
      const change = patch(current);
      if (!change) return current;
      const updated = await store.update(key, current.version, { ...change, updated_at: now() });
      if (updated) return updated;
    }
  }

  /**
   * Hands a terminal record to the app once: under the record's lease (so no other instance
   * runs it meanwhile), outputs persisted first, then `onTerminal`, then `notified` written.
   * A failure leaves it unnotified; the reconciler tries again.
   */
  async function notify(record: GenerationRecord): Promise<boolean> {
    // The lease keeps other instances out; this set keeps out this instance's other paths (a
    // webhook and a reconciler pass both reaching the same record), since a lease is re-entrant.
    if (record.notified || notifying.has(record.key)) return false;
    notifying.add(record.key);
    try {
      const handed = await notifyLeased(record);
      // Counted by the pass following the record, whichever path got here (a poll's advance too).
      const pass = following.get(record.key);
      if (handed && pass) pass.notified++;
      return handed;
    } finally {
      notifying.delete(record.key);
    }
  }

  async function notifyLeased(record: GenerationRecord): Promise<boolean> {
    if (!(await store.claim(record.key, me, now() + leaseMs, now()))) return false;
    let current: GenerationRecord | undefined = record;
    try {
      current = await store.get(record.key);
      if (!current || current.notified || !isTerminalStatus(current.status)) return false;
      if (options.persistOutputs && current.status === 'completed' && !current.outputs && !current.unavailable) {
        const outputs = await persist(current, options.persistOutputs);
        current = (await patchRecord(current.key, () => ({ outputs }))) ?? current;
      }
      await options.onTerminal?.(viewOf(current));
      await patchRecord(current.key, () => ({ notified: true }));
      return true;
    } catch (error) {
      report(error, current);
      if (current) await patchRecord(current.key, () => ({ next_check_at: now() + 2_000 })).catch(() => {});
      return false;
    } finally {
      await store.release(record.key, me).catch(() => {});
    }
  }

  async function persist(record: GenerationRecord, sink: OutputSink): Promise<string[]> {
    const id = record.generation_id as string;
    const count = record.generation?.output_urls?.length ?? (record.generation?.output_url ? 1 : 0);
    const saved: string[] = [];
    for (let index = 0; index < count; index++) {
      const generation = record.generation as Generation;
      const url = generation.output_urls?.[index] ?? generation.output_url ?? '';
      // download() signs the link afresh when it is near expiry or refused.
      const body = await client.generations.download(generation, { index });
      saved.push(await sink.put(outputName(id, index, url), body, { generationId: id, index, contentType: null }));
    }
    return saved;
  }

  /** Sends (or resends) an intent with its own key and records the answer. */
  async function send(record: GenerationRecord, signal?: AbortSignal): Promise<GenerationRecord> {
    let submitted: SubmitResponse;
    try {
      submitted = await client.generations.create(record.params as TypedGenerateParams, { idempotencyKey: record.key, signal });
    } catch (error) {
      if (isMediaGenError(error) && !error.retryable && error.code !== 'ABORTED') {
        // Refused for good: nothing was billed (the service bills only what it accepts), the intent ends here.
        const failed = await patchRecord(record.key, (r) =>
          r.status === 'submitting' ? { status: 'failed', error: refusal(error), next_check_at: now() } : undefined,
        );
        if (failed?.status === 'failed') await notify(failed);
      } else {
        // Maybe billed, maybe not: the reconciler resends the same key (rule 1 answers the original).
        await patchRecord(record.key, (r) => (r.status === 'submitting' ? { next_check_at: now() + 1_000 } : undefined));
      }
      throw error;
    }
    return observe(record, generationFromSubmit(submitted));
  }

  async function refresh(record: GenerationRecord): Promise<GenerationRecord> {
    const id = record.generation_id;
    if (record.status !== 'completed' || record.outputs || record.unavailable || !id) return record;
    if (confirmed.has(record.key) && !linksStale(record.generation, now(), marginMs)) return record;
    try {
      return await observe(record, await client.generations.get(id));
    } catch (error) {
      if (error instanceof NotFoundError) return (await patchRecord(record.key, () => ({ unavailable: true }))) ?? record;
      report(error, record);
      // Never an expired link: served without links until a read succeeds (the record keeps them).
      if (!linksStale(record.generation, now(), 0) || !record.generation) return record;
      return { ...record, generation: { ...record.generation, output_url: null, output_urls: null } };
    }
  }

  async function find(id: string): Promise<GenerationRecord | undefined> {
    if (!isPlausibleId(id)) return undefined; // from outside, and no record has it (util/plausible-id)
    return (await store.getByGenerationId(id)) ?? (await store.get(id));
  }

  async function follow(record: GenerationRecord, counts: ReconcileReport): Promise<void> {
    if (isTerminalStatus(record.status)) {
      await notify(record);
      return;
    }
    if (record.status === 'submitting' || !record.generation_id) {
      counts.resent++;
      await send(record).catch((error: unknown) => report(error, record));
      return;
    }
    counts.polled++;
    try {
      const generation = await client.generations.get(record.generation_id, { maxRetries: 0 });
      const after = await observe(record, generation);
      // No news: look again after one interval (an advance has set its own next check).
      if (after.status === record.status) {
        const interval = await intervalFor(record.params.model);
        await patchRecord(record.key, () => ({ next_check_at: now() + interval }));
      }
    } catch (error) {
      if (error instanceof NotFoundError) {
        // The service no longer knows it (its records were reset): it will never finish.
        const gone = await patchRecord(record.key, (r) =>
          isTerminalStatus(r.status)
            ? undefined
            : { status: 'failed', unavailable: true, error: { code: 'NOT_FOUND', message: error.message, retryable: false } },
        );
        if (gone?.status === 'failed') await notify(gone);
        return;
      }
      report(error, record);
      const interval = await intervalFor(record.params.model);
      await patchRecord(record.key, () => ({ next_check_at: now() + interval }));
    }
  }

  let timer: unknown;
  let running: Promise<unknown> | undefined;
  let stopped = true;

  const ledger: GenerationLedger = {
    async submit(owner, params, submitOptions = {}) {
      checkOwner(owner);
      if (typeof params !== 'object' || !params || typeof params.model !== 'string' || params.model === '') {
        throw new ConfigurationError('Generate params must be an object with a `model` slug.');
      }
      const key = submitOptions.idempotencyKey ?? globalThis.crypto.randomUUID();
      if (!isIdempotencyKey(key)) throw new ConfigurationError('idempotencyKey must be 1-255 visible ASCII characters.');
      const at = now();
      // The reconciler leaves it alone for one lease length (the call in flight); should this
      // process die, it resends it after that. No lease row to take and give back: one write less.
      const record: GenerationRecord = { ...newRecord(key, owner, params as GenerateParams, at), next_check_at: at + leaseMs };
      // Recorded before it is sent: a crash from here on leaves an intent reconcile() resends.
      if (!(await store.insert(record))) {
        const existing = (await store.get(key)) as GenerationRecord;
        if (existing.owner !== owner || JSON.stringify(existing.params) !== JSON.stringify(params)) {
          // As the service answers the same case (idempotency rule 2); it never reaches the service.
          throw new InvalidRequestError('This Idempotency-Key was already used for another submit.', {
            status: 422,
            code: 'IDEMPOTENCY_KEY_REUSED',
            next: 'Send a new Idempotency-Key for a new submit.',
          });
        }
        // A double click or a resend: the same intent. Sent again only if still unanswered.
        if (existing.status !== 'submitting') return viewOf(existing);
        return viewOf(await send(existing, submitOptions.signal));
      }
      return viewOf(await send(record, submitOptions.signal));
    },

    async get(owner, id) {
      checkOwner(owner);
      const record = await find(id);
      if (!record || record.owner !== owner) return undefined;
      return viewOf(await refresh(record));
    },

    async list(owner, listOptions = {}) {
      checkOwner(owner);
      const limit = Math.min(Math.max(1, Math.trunc(listOptions.limit ?? DEFAULT_LIMIT) || DEFAULT_LIMIT), MAX_LIMIT);
      const after = listOptions.cursor ? parseCursor(listOptions.cursor) : undefined;
      const page = await store.list(owner, { limit: limit + 1, after });
      const shown = page.slice(0, limit);
      const fresh = await Promise.all(shown.map((r) => refresh(r)));
      const last = shown[shown.length - 1];
      return { generations: fresh.map(viewOf), next_cursor: page.length > limit && last ? formatCursor(last) : null };
    },

    async adopt(owner, submitted, params) {
      checkOwner(owner);
      const known = await store.getByGenerationId(submitted.generation_id);
      if (known) return viewOf(known);
      const at = now();
      const generation = generationFromSubmit(submitted);
      const record: GenerationRecord = {
        ...newRecord(`generation:${submitted.generation_id}`, owner, params, at),
        status: 'pending',
        generation_id: submitted.generation_id,
        generation,
        next_check_at: at + (await intervalFor(submitted.model)),
        lease_holder: null,
        lease_until: 0,
      };
      if (await store.insert(record)) return viewOf(record);
      return viewOf((await store.getByGenerationId(submitted.generation_id)) ?? record);
    },

    async applyEvent(event) {
      const data = event?.data;
      if (!data || typeof data.generation_id !== 'string') return undefined;
      return ledger.apply(generationFromEvent(data));
    },

    async apply(generation) {
      const record = await store.getByGenerationId(generation.generation_id);
      // Unknown here: an intent whose 202 was never recorded; reconcile() resends it and learns its id.
      if (!record) return undefined;
      return viewOf(await observe(record, generation));
    },

    async wait(owner, id, waitOptions = {}) {
      const record = await find(id);
      if (!record || record.owner !== owner || !record.generation_id) {
        throw new ConfigurationError(oneLine(`No generation ${id} of this owner to wait for.`));
      }
      const generation = await client.generations.wait(record.generation_id, {
        ...waitOptions,
        onUpdate: (g) => void ledger.apply(g).catch((error: unknown) => report(error, record)),
      });
      return (await ledger.apply(generation)) ?? viewOf(record);
    },

    async reconcile() {
      const due = await store.due(now(), batch);
      const counts: ReconcileReport = { due: due.length, followed: 0, polled: 0, resent: 0, notified: 0, errors: 0 };
      await Promise.all(
        due.map(async (candidate) => {
          if (!(await store.claim(candidate.key, me, now() + leaseMs, now()))) return;
          counts.followed++;
          following.set(candidate.key, counts);
          try {
            const record = await store.get(candidate.key);
            if (record) await follow(record, counts);
          } catch (error) {
            report(error, candidate);
          } finally {
            if (following.get(candidate.key) === counts) following.delete(candidate.key);
            await store.release(candidate.key, me).catch(() => {});
          }
        }),
      );
      return counts;
    },

    start() {
      if (!stopped) return;
      stopped = false;
      const tick = () => {
        let full = false;
        running = ledger
          .reconcile()
          .then((counts) => {
            full = counts.due >= batch;
          })
          .catch((error: unknown) => report(error))
          .finally(() => {
            // A full batch means more is due now: the next pass starts at once, not after a tick.
            if (!stopped) timer = setTimer(tick, full ? 0 : tickMs);
          });
      };
      tick();
    },

    async stop() {
      stopped = true;
      clearTimer(timer);
      await running;
    },
  };
  return ledger;
}

/**
 * NUL, or a surrogate without its pair: what a database cannot store as written. PostgreSQL
 * refuses NUL; every store keeps text as UTF-8, where each lone surrogate becomes U+FFFD, so
 * two such owners would read one another's generations.
 */
const UNSTORABLE = /\0|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function checkOwner(owner: unknown): void {
  if (typeof owner !== 'string' || owner === '') throw new ConfigurationError('The ledger needs an owner (a non-empty string).');
  // Not echoed: an owner is the app's user id.
  if (UNSTORABLE.test(owner))
    throw new ConfigurationError('The ledger needs an owner without NUL or unpaired surrogates (check what identify returns).');
}

function refusal(error: unknown): GenerationError {
  const e = error as { code?: unknown; message?: unknown };
  return {
    code: typeof e.code === 'string' ? e.code : 'REFUSED',
    message: typeof e.message === 'string' ? e.message : '',
    retryable: false,
  };
}

/** The resource a 202 describes: pending, its reservation as `credits_used`. */
function generationFromSubmit(s: SubmitResponse): Generation {
  return {
    generation_id: s.generation_id,
    status: 'pending',
    model: s.model,
    output_url: null,
    output_urls: null,
    credits_used: s.credits_estimate,
    duration_ms: null,
    created_at: s.created_at,
    completed_at: null,
    request_id: s.request_id,
    credits_estimate: s.credits_estimate,
    pricing_source: s.pricing_source,
  };
}

function linksOf(g: Generation | null): string[] {
  return g?.output_urls ?? (g?.output_url ? [g.output_url] : []);
}

/** True when any link expires within `marginMs` of `at`; a link of another shape (a proxy's) never is. */
function linksStale(g: Generation | null, at: number, marginMs: number): boolean {
  return linksOf(g).some((url) => {
    try {
      return isExpired(url, at, marginMs);
    } catch {
      return false;
    }
  });
}

/** The incoming read carries links signed later than the stored ones. */
function freshLinks(stored: Generation | null, incoming: Generation): boolean {
  const before = linksOf(stored);
  const after = linksOf(incoming);
  if (after.length === 0) return false;
  if (before.length === 0) return true;
  return expiry(after[0] as string) > expiry(before[0] as string);
}

function expiry(url: string): number {
  try {
    return parseOutputLink(url).expiresAt.getTime();
  } catch {
    return 0;
  }
}

/**
 * `<generation_id>/<index>-<filename>`, each part reduced to `[A-Za-z0-9._-]` (no `..`): the
 * names come from the service's answer, and a sink may map them onto a filesystem.
 */
export function outputName(generationId: string, index: number, url: string): string {
  let filename = 'output';
  try {
    filename = parseOutputLink(url).filename;
  } catch {
    // A link of another shape (a proxy's): the generic name.
  }
  const safe = (s: string) =>
    s
      .replace(/[^A-Za-z0-9._-]/g, '_')
      .replace(/^\.+/, '_')
      .slice(0, 120) || '_';
  return `${safe(generationId)}/${index}-${safe(filename)}`;
}

function formatCursor(r: GenerationRecord): string {
  return `${r.created_at}.${encodeURIComponent(r.key)}`;
}

function parseCursor(cursor: string): ListCursor {
  const m = /^(\d{1,15})\.(.+)$/.exec(cursor);
  let key: string | undefined;
  try {
    key = m ? decodeURIComponent(m[2] as string) : undefined;
  } catch {
    key = undefined;
  }
  // The cursor comes back from outside (a browser's query string): a bad one is the asker's
  // error, answered 422 by the routes, not a fault of the app.
  if (!m || !isPlausibleId(key)) {
    throw routeError('INVALID_BODY', 'Not a cursor this list gave: pass back next_cursor as it came.', { details: { field: 'cursor' } });
  }
  return { created_at: Number(m[1]), key };
}
