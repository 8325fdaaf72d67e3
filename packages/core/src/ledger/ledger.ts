import type { MediaGenClient } from '../client';
import { AbortError, ConfigurationError, InvalidRequestError, isMediaGenError, NotFoundError, ParamsValidationError } from '../errors';
import { generationFromEvent } from '../events/generation-from-event';
import type { GateWait } from '../gate/store';
import { isExpired, parseOutputLink } from '../links/output-link';
import type { TypedGenerateParams } from '../params/registry';
import { validateParams } from '../params/validate';
import { routeError } from '../server/route-error';
import type { GenerateParams, Generation, SubmitResponse } from '../types';
import { isIdempotencyKey } from '../util/idempotency-key';
import { MAX_NESTING, nestsDeeperThan } from '../util/nesting';
import { oneLine } from '../util/one-line';
import { isPlausibleId } from '../util/plausible-id';
import type { WebhookEvent } from '../webhooks/verify';
import { pollIntervalMs } from '../wire/timing';
import { FirstSends, type LedgerCancel, STOPPED_UNSENT, wasStopped } from './cancel';
import { ConfirmedLinks } from './confirmed-links';
import { type EtaEstimatorOptions, type GenerationEta, renderTimes } from './eta-history';
import type { OutputSink } from './output-sink';
import { persistOutputs } from './persist-outputs';
import { precedence } from './precedence';
import { type GenerationRecord, isTerminalStatus, newRecord, type RecordPatch } from './record';
import { provesRefusal, refusalOf } from './refusal';
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
  /**
   * The most bytes one persisted output may have. Outputs are streamed to the sink (never held
   * whole); past this the download is aborted, the sink keeps nothing, and `onError` gets an
   * `OutputTooLargeError`. Default 1 GiB (`DEFAULT_MAX_OUTPUT_BYTES`).
   */
  maxOutputBytes?: number;
  /** Names this instance in leases. Default: a random UUID. */
  instanceId?: string;
  /**
   * How long a lease on a record lasts. A live holder renews it every third of this while its
   * work runs (a submit's call, however long its `Retry-After` waits; a resend; a persist), so
   * only a dead holder's lease lapses: its records are taken up by any instance this long after
   * it died. Default 6 s.
   */
  leaseMs?: number;
  /**
   * How long a submit the service refused (nothing billed, no generation) stays recorded, so a
   * replay of its key answers the same refusal; then the reconciler deletes it. Generations the
   * service accepted are never deleted by the ledger. Default 24 h.
   */
  refusedRetentionMs?: number;
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
  /**
   * Estimates of time remaining (`eta`), from the render times of this app's own completed
   * generations: how many are kept per model and render params, and how often the history is
   * read again from the store (to learn what other instances saw; default every 5 min).
   */
  eta?: EtaEstimatorOptions & { refreshMs?: number };
  /** Sees failures the ledger recovers from (a poll or resend that failed, a handler that threw). */
  onError?(error: unknown, record?: LedgerGeneration): void;
}

export interface SubmitOptions {
  /** The key for this intent (a browser's, scoped to its user). Default: a random UUID. */
  idempotencyKey?: string;
  signal?: AbortSignal;
  /** Told where this submit stands each time it waits for a slot in the client's gate (`RequestOptions.onQueue`). */
  onQueue?: ((wait: GateWait) => void) | undefined;
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
  /**
   * Stops the owner's intent (by `generation_id` or idempotency key) as far as the contract allows,
   * and says how far that was (`LedgerCancel`): an intent not yet sent is stopped for real and
   * nothing is charged; one the service has, or may have, goes on and is billed, marked
   * `abandoned` and still followed so its result is kept. Undefined for anyone else's.
   */
  cancel(owner: string, id: string): Promise<LedgerCancel | undefined>;
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
  /**
   * `client.generations.wait` for the owner's generation, every status it sees applied;
   * `onUpdate` gets each status read with the estimate of time remaining (`eta`) while it runs.
   */
  wait(
    owner: string,
    id: string,
    options?: { signal?: AbortSignal; timeoutMs?: number; onUpdate?(generation: Generation & { eta?: GenerationEta }): void },
  ): Promise<LedgerGeneration>;
  /**
   * An estimate of the time `generation` has left (p50 and p90), from this app's past renders of
   * its model with the same render params (duration, resolution, number of results), else the
   * contract's typical range for its kind; undefined once it is terminal, or when nothing is known.
   */
  eta(generation: { generation_id: string | null; status: string; model: string; created_at?: string }): GenerationEta | undefined;
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
  const leaseMs = options.leaseMs ?? 6_000;
  const refusedRetentionMs = options.refusedRetentionMs ?? 24 * 3_600_000;
  const marginMs = options.linkMarginMs ?? 10 * 60_000;
  const batch = options.batchSize ?? 100;
  const tickMs = options.tickMs ?? 500;
  const now = options.now ?? Date.now;
  const setTimer = options.setTimeout ?? ((cb: () => void, ms: number) => globalThis.setTimeout(cb, ms));
  const clearTimer = options.clearTimeout ?? ((t: unknown) => globalThis.clearTimeout(t as Parameters<typeof clearTimeout>[0]));
  /** Records whose terminal state this instance is handing over right now. */
  const notifying = new Set<string>();
  const confirmed = new ConfirmedLinks(options.confirmedLinksMax);
  const times = renderTimes(store, now, options.eta);
  const firstSends = new FirstSends();
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

  /**
   * Runs `work` on a record whose lease this instance holds, renewing the lease every third of
   * its length until the work ends: a slow call never lets another instance resend it meanwhile,
   * and a crash lets the lease lapse within `leaseMs`. Should a renewal lose (this process
   * stalled past the lease), the worst is a resend with the same key, which never bills twice.
   */
  async function holding<T>(key: string, work: () => Promise<T>, renewed?: () => unknown): Promise<T> {
    // Real timers, not `options.setTimeout` (the reconciler's pacing): a lease is wall-clock time.
    let timer: ReturnType<typeof setTimeout> | undefined;
    let over = false;
    const renew = () => {
      timer = setTimeout(() => {
        void store
          .claim(key, me, now() + leaseMs, now())
          .then(() => over || renewed?.())
          .catch((error: unknown) => report(error))
          .finally(() => over || renew());
      }, leaseMs / 3);
      (timer as { unref?(): void }).unref?.();
    };
    renew();
    try {
      return await work();
    } finally {
      over = true;
      clearTimeout(timer);
    }
  }

  /** The contract's interval for the model's kind (image 2 s, video 4 s), from the cached list. */
  async function intervalFor(model: string): Promise<number> {
    const found = await client.models.find(model).catch(() => undefined);
    times.kindOf(model, found?.kind);
    return pollIntervalMs(found?.kind);
  }

  /**
   * Applies what a source saw, through `precedence`, with compare-and-set: a lost race reads
   * again and decides again, so concurrent sources on any number of instances converge.
   */
  async function observe(record: GenerationRecord, generation: Generation, extra?: RecordPatch): Promise<GenerationRecord> {
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
          ...extra,
        };
      }
      patch.updated_at = now();
      const updated = await store.update(current.key, current.version, patch);
      if (updated) {
        times.saw(updated);
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
    return holding(record.key, () => handOver(record));
  }

  async function handOver(record: GenerationRecord): Promise<boolean> {
    let current: GenerationRecord | undefined = record;
    try {
      current = await store.get(record.key);
      if (!current || current.notified || !isTerminalStatus(current.status)) return false;
      if (options.persistOutputs && current.status === 'completed' && !current.outputs && !current.unavailable) {
        try {
          const outputs = await persistOutputs(client, current, options.persistOutputs, { maxOutputBytes: options.maxOutputBytes });
          current = (await patchRecord(current.key, () => ({ outputs }))) ?? current;
        } catch (error) {
          // An output over the bound, or a link not on the service's address, fails the same way
          // on every pass: reported once, and the generation handed over with the service's links.
          if (!isMediaGenError(error) || error.retryable || error.code === 'ABORTED' || !PERMANENT_PERSIST.has(error.code)) throw error;
          report(error, current);
        }
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

  /**
   * Sends (or resends) an intent with its own key, under this instance's lease (its caller holds
   * it: `submit` or a reconciler pass), and records the answer, giving the lease back in the same write.
   */
  async function send(
    record: GenerationRecord,
    signal?: AbortSignal,
    first = false,
    onQueue?: SubmitOptions['onQueue'],
  ): Promise<GenerationRecord> {
    let submitted: SubmitResponse;
    try {
      submitted = await client.generations.create(record.params as TypedGenerateParams, {
        idempotencyKey: record.key,
        signal,
        ...(onQueue && { onQueue }),
      });
    } catch (error) {
      if (first && error instanceof AbortError) {
        // Stopped (its caller's signal, or `cancel`) before `create`'s send point, and no earlier
        // attempt exists: the service never had it. The intent ends here, never to be resent.
        const stopped = await patchRecord(record.key, (r) =>
          r.status === 'submitting'
            ? { status: 'failed', abandoned: true, error: STOPPED_UNSENT, next_check_at: now(), ...FREE }
            : undefined,
        );
        if (stopped?.status === 'failed') await notify(stopped);
      } else if (provesRefusal(error)) {
        // Refused for good by the contract's own answer: nothing was billed, the intent ends here.
        const failed = await patchRecord(record.key, (r) =>
          r.status === 'submitting' ? { status: 'failed', error: refusalOf(error), next_check_at: now(), ...FREE } : undefined,
        );
        if (failed?.status === 'failed') await notify(failed);
      } else {
        // Maybe billed (an unusable 2xx was billed for sure): resent with the same key, which rule 1
        // answers with the original. Spaced out as the intent ages, so a service that keeps
        // answering so is asked less and less often (1 s up to 5 min).
        // Refused before sending (the account gate's store unreachable, or no slot in time): nothing
        // reached the service, so no backoff is owed; any instance whose gate serves resends it.
        const unsent = isMediaGenError(error) && UNSENT_CODES.has(error.code);
        if (unsent) cannotSendUntil = now() + CANNOT_SEND_MS;
        await patchRecord(record.key, (r) =>
          r.status === 'submitting' ? { next_check_at: now() + (unsent ? 1_000 : resendDelay(now() - r.created_at)), ...FREE } : undefined,
        );
      }
      throw error;
    }
    return observe(record, generationFromSubmit(submitted), FREE);
  }

  /**
   * What the client checks before it sends, checked before the intent is written: the nesting (a
   * value deep enough to overflow a recursive copy) and the model's schema, when the account's
   * list has the model (else the service decides, and its refusal ends the intent).
   */
  async function checkParams(params: GenerateParams): Promise<void> {
    if (nestsDeeperThan(params)) {
      throw routeError('INVALID_BODY', `The params nest deeper than ${MAX_NESTING} levels.`);
    }
    const model = await client.models.find(params.model).catch(() => undefined);
    times.kindOf(params.model, model?.kind);
    if (!model) return;
    let issues: ReturnType<typeof validateParams> = [];
    try {
      issues = validateParams(model, params);
    } catch {
      // A model entry validation cannot read: the service decides (as the client's own check does).
    }
    if (issues.length > 0) throw new ParamsValidationError(params.model, issues);
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

  /** When this instance last deleted refusals past their retention: once a minute is plenty. */
  let purgedAt = Number.NEGATIVE_INFINITY;
  async function purge(): Promise<void> {
    if (now() - purgedAt < 60_000) return;
    purgedAt = now();
    await store.purgeRefused(now() - refusedRetentionMs, batch).catch((error: unknown) => report(error));
  }

  let timer: unknown;
  let running: Promise<unknown> | undefined;
  let stopped = true;
  /**
   * Until when this instance's own submits are refused before sending (its gate's Redis cut off):
   * meanwhile its reconciler resends one intent per pass (a probe), leaving the rest to instances
   * whose gate serves instead of holding them all under its lease while each is refused.
   */
  let cannotSendUntil = 0;

  const ledger: GenerationLedger = {
    async submit(owner, params, submitOptions = {}) {
      checkOwner(owner);
      if (typeof params !== 'object' || !params || typeof params.model !== 'string' || params.model === '') {
        throw new ConfigurationError('Generate params must be an object with a `model` slug.');
      }
      const key = submitOptions.idempotencyKey ?? globalThis.crypto.randomUUID();
      if (!isIdempotencyKey(key)) throw new ConfigurationError('idempotencyKey must be 1-255 visible ASCII characters.');
      // Refused here, before anything is written: a submit the model's schema refuses is never
      // sent and never billed, so it leaves nothing behind (a refused body costs no disk).
      await checkParams(params as GenerateParams);
      const at = now();
      // Written under this instance's lease, renewed while the call runs: the reconciler leaves
      // it alone meanwhile, and should this process die, any instance resends it once the lease
      // lapses (`leaseMs`). Listed to its owner from this write on, as `submitting`.
      const record: GenerationRecord = {
        ...newRecord(key, owner, params as GenerateParams, at),
        lease_holder: me,
        lease_until: at + leaseMs,
      };
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
        // Its first call may still run (here or on another instance): rule 3 answers 409 then, rule 1 the original.
        return viewOf(await holding(key, () => send(existing, submitOptions.signal, false, submitOptions.onQueue)));
      }
      // Its first send: `cancel` (here, or the mark from another instance read at each lease
      // renewal) stops it for real while it is before the send point.
      return viewOf(
        await firstSends.run(key, submitOptions.signal, (signal) =>
          holding(
            key,
            () => send(record, signal, true, submitOptions.onQueue),
            async () => {
              if ((await store.get(key))?.abandoned) void firstSends.stop(key);
            },
          ),
        ),
      );
    },

    async cancel(owner, id) {
      checkOwner(owner);
      const found = await find(id);
      if (!found || found.owner !== owner) return undefined;
      // Its first send runs here: stopped before the send point, or answered. The record says which.
      let record = (await firstSends.stop(found.key)) ? ((await store.get(found.key)) ?? found) : found;
      if (!isTerminalStatus(record.status)) {
        // The service has it or may have it: it goes on, billed, and the ledger keeps following it.
        record =
          (await patchRecord(record.key, (r) => (r.abandoned || isTerminalStatus(r.status) ? undefined : { abandoned: true }))) ?? record;
      }
      const outcome = wasStopped(record) ? 'stopped' : isTerminalStatus(record.status) ? 'finished' : 'abandoned';
      // A refusal was never billed; an abandoned intent counts as billed (it goes on to the service).
      return { outcome, charged: outcome === 'abandoned' || record.generation_id !== null, generation: times.view(record) };
    },

    async get(owner, id) {
      checkOwner(owner);
      const record = await find(id);
      if (!record || record.owner !== owner) return undefined;
      return times.view(await refresh(record));
    },

    async list(owner, listOptions = {}) {
      checkOwner(owner);
      const limit = Math.min(Math.max(1, Math.trunc(listOptions.limit ?? DEFAULT_LIMIT) || DEFAULT_LIMIT), MAX_LIMIT);
      const after = listOptions.cursor ? parseCursor(listOptions.cursor) : undefined;
      const page = await store.list(owner, { limit: limit + 1, after });
      const shown = page.slice(0, limit);
      const fresh = await Promise.all(shown.map((r) => refresh(r)));
      const last = shown[shown.length - 1];
      return { generations: fresh.map(times.view), next_cursor: page.length > limit && last ? formatCursor(last) : null };
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
      times.saw(record);
      const { onUpdate, ...rest } = waitOptions;
      const generation = await client.generations.wait(record.generation_id, {
        ...rest,
        onUpdate: (g) => {
          void ledger.apply(g).catch((error: unknown) => report(error, record));
          if (!onUpdate) return;
          const eta = times.eta(g);
          try {
            onUpdate(eta ? { ...g, eta } : g);
          } catch (error) {
            report(error, record);
          }
        },
      });
      return (await ledger.apply(generation)) ?? viewOf(record);
    },

    eta: (generation) => times.eta(generation),

    async reconcile() {
      await purge();
      await times.refresh().catch((error: unknown) => report(error));
      const due = await store.due(now(), batch);
      const counts: ReconcileReport = { due: due.length, followed: 0, polled: 0, resent: 0, notified: 0, errors: 0 };
      let probes = now() < cannotSendUntil ? 1 : Number.POSITIVE_INFINITY;
      await Promise.all(
        due.map(async (candidate) => {
          if (candidate.status === 'submitting' && probes-- <= 0) return;
          if (!(await store.claim(candidate.key, me, now() + leaseMs, now()))) return;
          counts.followed++;
          following.set(candidate.key, counts);
          try {
            const record = await store.get(candidate.key);
            if (record) await holding(candidate.key, () => follow(record, counts));
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

/** Persist failures that no later pass can change: an output over `maxOutputBytes`, a link off the service's address. */
const PERMANENT_PERSIST: ReadonlySet<string> = new Set(['OUTPUT_TOO_LARGE', 'CONFIGURATION_ERROR']);

/** A lease given back in the same write that records what its holder learned. */
const FREE: RecordPatch = { lease_holder: null, lease_until: 0 };

/** The wait before an unanswered intent is resent: half its age, from 1 s up to 5 min. */
/** What a submit fails with before anything is sent: the gate's store refused (fail-closed Redis), or the gate found no slot in time. */
const UNSENT_CODES = new Set(['REDIS_UNAVAILABLE', 'REDIS_DATA_LOST', 'GATE_TIMEOUT']);
/** How long after such a refusal the reconciler resends only one intent per pass. */
const CANNOT_SEND_MS = 5_000;

function resendDelay(ageMs: number): number {
  return Math.min(5 * 60_000, Math.max(1_000, ageMs / 2));
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
