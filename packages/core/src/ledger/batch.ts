import type { MediaGenClient } from '../client';
import { AbortError, ConfigurationError, isMediaGenError } from '../errors';
import type { GenerateParams, Generation, GenerationError } from '../types';
import { sleep } from '../util/sleep';
import { batchItemKey, canonicalParams, checkBatchId } from './batch-key';
import type { GenerationLedger } from './ledger';
import type { LedgerGeneration } from './view';

export interface BatchOptions {
  /** The ledger every item is recorded in before it is sent, and followed through. */
  ledger: GenerationLedger;
  /** The ledger's client: its gate keeps the batch under the account's limits. */
  client: MediaGenClient;
  /** Whose generations these are (the ledger's owner). */
  owner: string;
  /**
   * Names the batch. With each item's index and content it makes the item's idempotency key, so
   * running the same batch id again (after a crash, a Ctrl-C) follows what was recorded and
   * submits only the rest: nothing is billed twice.
   */
  batchId: string;
  items: readonly GenerateParams[];
  /**
   * Items in hand at once (submitted and followed to their end). Default: the account's
   * `max_concurrent` from the model list, so a slot frees exactly as a generation ends.
   */
  concurrency?: number;
  /** Poll interval while following an item. Default: the contract's per kind (image 2 s, video 4 s). */
  intervalMs?: number;
  /** Longest wait for one generation to end; then the item is left unfinished (a re-run follows it). */
  waitTimeoutMs?: number;
  /** Stops taking items and stops following; nothing billed is cancelled (the contract has no cancel). */
  signal?: AbortSignal;
  /** After every change of an item's state. */
  onProgress?(progress: BatchProgress): void;
  /** Once per item, when it is settled in this run (completed, failed, or left unfinished). */
  onItem?(item: BatchItemResult): void;
}

/**
 * `unfinished`: not settled in this run (interrupted, not yet submitted, or a resend the service
 * kept refusing for now). Running the same batch again takes it up with the same key.
 */
export type BatchItemStatus = 'completed' | 'failed' | 'unfinished';

export interface BatchItemResult {
  /** The item's place in `items`: results come back in this order. */
  index: number;
  idempotency_key: string;
  status: BatchItemStatus;
  /** The ledger's record of it; null when nothing was recorded (never sent, or refused before it was written). */
  generation: LedgerGeneration | null;
  /** Why it failed or is unfinished; null when it completed. */
  error: GenerationError | null;
  /** Recorded by an earlier run of this batch: followed here, not submitted again. */
  resumed: boolean;
}

export interface BatchProgress {
  total: number;
  completed: number;
  failed: number;
  unfinished: number;
  /** Items in hand: being submitted (or waiting in the gate for a slot) or followed. */
  running: number;
  /** Items not yet taken. */
  queued: number;
  /** Items found recorded by an earlier run. */
  resumed: number;
  /** Final charges of the items settled so far. */
  credits_used: number;
}

export interface BatchResult extends BatchProgress {
  batch_id: string;
  /** One per item, in the items' order. */
  items: BatchItemResult[];
  /** The signal stopped the run before every item was settled. */
  interrupted: boolean;
}

/** Resends of a submit the service may still take (5xx, 409, 429, network), beyond the client's own retries. */
const EXTRA_ROUNDS = 3;
const DEFAULT_CONCURRENCY = 5;

/**
 * Runs many requests as one batch on the generation ledger: each item is written before it is
 * sent, with a key derived from the batch id, its index and its content (`batchItemKey`), goes
 * through the client's gate, and is followed to its end; results come back in order, a failure
 * kept on its own item. Re-running the same batch id resumes: an item already recorded is
 * followed (an unanswered intent is resent with its own key, which the service answers with the
 * original), never submitted as new.
 */
export async function runBatch(options: BatchOptions): Promise<BatchResult> {
  const { ledger, client, owner, batchId, items, signal } = options;
  checkBatchId(batchId);
  if (!ledger || !client || !Array.isArray(items))
    throw new ConfigurationError('runBatch needs { ledger, client, owner, batchId, items }.');
  const concurrency = options.concurrency ?? (await accountConcurrency(client, signal));
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new ConfigurationError('concurrency must be a whole number of at least 1.');

  const results: BatchItemResult[] = items.map((params, index) => ({
    index,
    idempotency_key: batchItemKey(batchId, index, params),
    status: 'unfinished',
    generation: null,
    error: null,
    resumed: false,
  }));
  const progress: BatchProgress = {
    total: items.length,
    completed: 0,
    failed: 0,
    unfinished: 0,
    running: 0,
    queued: items.length,
    resumed: 0,
    credits_used: 0,
  };
  const tell = () => {
    try {
      options.onProgress?.({ ...progress });
    } catch {
      // An observer's failure changes nothing.
    }
  };

  let next = 0;
  const worker = async () => {
    while (next < items.length && !signal?.aborted) {
      const index = next++;
      const result = results[index] as BatchItemResult;
      progress.queued--;
      progress.running++;
      tell();
      await settleItem(result, items[index] as GenerateParams, () => {
        progress.resumed++;
        tell();
      });
      progress.running--;
      if (result.status === 'completed') progress.completed++;
      else if (result.status === 'failed') progress.failed++;
      else progress.unfinished++;
      if (result.status !== 'unfinished') progress.credits_used += Number(result.generation?.credits_used) || 0;
      try {
        options.onItem?.(result);
      } catch {
        // As above.
      }
      tell();
    }
  };

  async function settleItem(result: BatchItemResult, raw: GenerateParams, resumed: () => void): Promise<void> {
    const key = result.idempotency_key;
    try {
      let view = await ledger.get(owner, key);
      if (view) {
        result.resumed = true;
        resumed();
      }
      // An intent the service never answered is sent again with its own key (never billed twice).
      if (!view || view.submitting) view = await submit(canonicalParams(raw), key);
      result.generation = view;
      if (view.status !== 'completed' && view.status !== 'failed') view = await follow(view);
      result.generation = view;
      settle(result, view);
    } catch (error) {
      result.generation = (await ledger.get(owner, key).catch(() => undefined)) ?? result.generation;
      const recorded = result.generation;
      if (recorded && (recorded.status === 'failed' || recorded.status === 'completed') && !recorded.submitting) {
        settle(result, recorded);
        return;
      }
      // Refused before anything was written (the model's schema): failed, nothing billed.
      const permanent = isMediaGenError(error) && !error.retryable && !(error instanceof AbortError) && !recorded?.generation_id;
      result.status = permanent ? 'failed' : 'unfinished';
      result.error = errorOf(error);
    }
  }

  async function submit(params: GenerateParams, key: string): Promise<LedgerGeneration> {
    for (let round = 0; ; round++) {
      try {
        return await ledger.submit(owner, params as never, { idempotencyKey: key, ...(signal ? { signal } : {}) });
      } catch (error) {
        if (round >= EXTRA_ROUNDS || signal?.aborted || !isMediaGenError(error) || !error.retryable || error instanceof AbortError)
          throw error;
        const wait = (error as { retryAfterMs?: number }).retryAfterMs;
        await sleep(Math.min(30_000, wait ?? 1_000 * 2 ** round), signal);
      }
    }
  }

  /** Polls to the end, every state seen applied to the ledger (which persists outputs and hands over). */
  async function follow(view: LedgerGeneration): Promise<LedgerGeneration> {
    const id = view.generation_id as string;
    // Applied one after another, and awaited before the item counts as settled: the apply that
    // sees the terminal state is the one that stores the outputs and hands the item over.
    let applied: Promise<unknown> = Promise.resolve();
    const generation = await client.generations.wait(id, {
      ...(options.intervalMs === undefined ? {} : { intervalMs: options.intervalMs }),
      ...(options.waitTimeoutMs === undefined ? {} : { timeoutMs: options.waitTimeoutMs }),
      ...(signal ? { signal } : {}),
      onUpdate: (g: Generation) => {
        applied = applied.then(() => ledger.apply(g)).catch(() => {});
      },
    });
    await applied;
    return (await ledger.apply(generation)) ?? view;
  }

  await Promise.all(Array.from({ length: Math.min(concurrency, Math.max(1, items.length)) }, worker));
  // Items never taken (the signal stopped the run) stay unfinished.
  progress.unfinished += progress.queued;
  progress.queued = 0;
  tell();
  return { ...progress, batch_id: batchId, items: results, interrupted: Boolean(signal?.aborted) && progress.unfinished > 0 };
}

function settle(result: BatchItemResult, view: LedgerGeneration): void {
  if (view.status === 'completed') {
    result.status = 'completed';
    result.error = null;
  } else if (view.status === 'failed') {
    result.status = 'failed';
    result.error = failureOf(view);
  }
}

/** The generation's error as the record keeps it; the earlier contract's string code read as one. */
function failureOf(view: LedgerGeneration): GenerationError {
  const e = view.error as unknown;
  if (typeof e === 'string') return { code: e, message: String(view.message ?? ''), retryable: false };
  const o = (e && typeof e === 'object' ? e : {}) as Partial<GenerationError>;
  return { code: String(o.code ?? 'unknown'), message: String(o.message ?? ''), retryable: o.retryable === true };
}

function errorOf(error: unknown): GenerationError {
  if (isMediaGenError(error)) return { code: error.code, message: error.message, retryable: error.retryable };
  return { code: 'UNEXPECTED', message: 'The item could not be submitted.', retryable: true };
}

async function accountConcurrency(client: MediaGenClient, signal?: AbortSignal): Promise<number> {
  try {
    const n = (await client.models.cachedList(signal ? { signal } : {})).rate_limit?.max_concurrent;
    return Number.isInteger(n) && (n as number) >= 1 && (n as number) <= 1_000 ? (n as number) : DEFAULT_CONCURRENCY;
  } catch (error) {
    if (error instanceof AbortError) throw error;
    return DEFAULT_CONCURRENCY;
  }
}
