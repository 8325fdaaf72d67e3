import type { MediaGenClient } from '../../client';
import { ConfigurationError } from '../../errors';
import { provesRefusal } from '../../ledger/refusal';
import { SHARED_OWNER } from '../../ledger/source';
import type { GenerateParams, WebhookPayload } from '../../types';
import type { WebhookEvent } from '../../webhooks/verify';
import { ENHANCE_CREDITS } from '../../wire/params';
import type { MediaGenContext } from '../options';
import { routeError } from '../route-error';
import { budgetFields, budgetRefusal } from './budget-refusal';
import type { BudgetCaps, BudgetStore } from './budget-store';
import { type EndedGeneration, settleBudget } from './settle';

/** A user's limits; a field left out is no limit. */
export interface BudgetLimits {
  /** Credits the user may spend per period (reserved at submit, settled to what the service charged). */
  creditsPerPeriod?: number;
  /** The period's length in ms, periods aligned to the Unix epoch (a day: `86_400_000`, UTC days). Default 30 days (the contract's cycle length). */
  periodMs?: number;
  /** Submits per sliding minute. */
  submitsPerMinute?: number;
  /** Generations submitted and not yet ended. */
  inFlight?: number;
}

/** The handler's `budget` option. */
export interface BudgetOptions<Platform = unknown> {
  /** Shared by every instance: `RedisBudgetStore` (`@mediagen/redis`), `PostgresBudgetStore` (`@mediagen/postgres`); `MemoryBudgetStore` for one. */
  store: BudgetStore;
  /** The limits of `owner` (the user `identify` named, `'*'` for anonymous ones); undefined: no limits for them. */
  limits(owner: string, context: MediaGenContext<Platform>): BudgetLimits | undefined | Promise<BudgetLimits | undefined>;
  /** The clock periods and minutes are counted on (ms). Default `Date.now`. */
  now?(): number;
}

/** The contract's billing cycle (spec: Limits, credit budget per 30-day cycle). */
const DEFAULT_PERIOD_MS = 30 * 86_400_000;

/** The `budget` of `GET /budget`: the limits and what is left, snake_case. */
export type BudgetView = { owner: string } & Record<string, unknown>;

/** An admitted submit: the key its reservation is under (undefined when the user has no limits). */
export interface Admission {
  key: string | undefined;
  /** The key was reserved by an earlier attempt (a resend): this one may not give it back. */
  replay?: boolean;
}

export interface BudgetGuard {
  /** Prices `params` exactly (the service's `estimate: true`) and reserves it, or throws the refusal. */
  admit(params: GenerateParams, key: string, context: MediaGenContext<never>): Promise<Admission>;
  /** The submit was answered: later ends find the reservation by the generation id. */
  answered(admission: Admission, generationId: string): Promise<void>;
  /** The submit threw: a proven refusal (nothing billed) gives the reservation back; anything else may have been billed and keeps it. */
  failed(admission: Admission, error: unknown): Promise<void>;
  /** A terminal generation seen anywhere (a read, the ledger): its reservation becomes what the service charged. */
  settle(generation: EndedGeneration): Promise<boolean>;
  /** A verified webhook event (a terminal one settles its generation); `key`: the intent's, when the source recorded it. */
  settleEvent(event: WebhookEvent, key?: string): Promise<void>;
  view(context: MediaGenContext<never>): Promise<BudgetView>;
}

/**
 * The app's limits as the stores apply them. A field left out is no limit; a value that is no
 * whole number of 0 or more (NaN, negative, a string from a broken plans table) is the app's
 * error, never read as "no limit": a `ConfigurationError` (500), and nothing is sent.
 */
export function capsOf(limits: BudgetLimits): BudgetCaps {
  const whole = (name: keyof BudgetLimits, min: number) => {
    const value = limits[name] as unknown;
    if (value === undefined) return -1;
    if (typeof value === 'number' && Number.isFinite(value) && value >= min) return Math.floor(value);
    throw new ConfigurationError(`budget.limits: ${name} must be a number of at least ${min}, or left out for no limit.`);
  };
  const period = whole('periodMs', 1);
  return {
    creditsPerPeriod: whole('creditsPerPeriod', 0),
    periodMs: period > 0 ? period : DEFAULT_PERIOD_MS,
    submitsPerMinute: whole('submitsPerMinute', 0),
    inFlight: whole('inFlight', 0),
  };
}

export function createBudgetGuard(client: MediaGenClient, options: BudgetOptions<never>): BudgetGuard {
  const { store } = options;
  const now = options.now ?? Date.now;
  const ownerOf = (context: MediaGenContext<never>) => context.owner ?? SHARED_OWNER;
  async function capsFor(owner: string, context: MediaGenContext<never>): Promise<BudgetCaps | undefined> {
    const limits = await options.limits(owner, context);
    return limits ? capsOf(limits) : undefined;
  }
  return {
    async admit(params, key, context) {
      const owner = ownerOf(context);
      const caps = await capsFor(owner, context);
      if (!caps) return { key: undefined };
      // The exact price, by the service's own rules (an invalid request is refused here, unbilled).
      const { credits_estimate } = await client.generations.estimate(params);
      // `credits_estimate` excludes the flat enhance pass, charged beside it (spec: Limits).
      const extraCredits = params.enhance === true ? ENHANCE_CREDITS : 0;
      const at = now();
      const verdict = await store.reserve({ owner, key, credits: credits_estimate, extraCredits, caps, now: at });
      if (!verdict.ok) throw budgetRefusal(verdict.limit, verdict.usage, caps, credits_estimate + extraCredits, at);
      return { key, replay: verdict.replay };
    },
    async answered({ key }, generationId) {
      if (key !== undefined) await store.bind(key, generationId, now());
    },
    async failed({ key, replay }, error) {
      // A resend's refusal (its body changed: IDEMPOTENCY_KEY_REUSED) says nothing of the first
      // attempt, which may be billed: only the attempt that reserved gives back.
      if (key !== undefined && !replay && provesRefusal(error)) await store.release(key, now());
    },
    settle: (generation) => settleBudget(store, generation, now()),
    async settleEvent(event, key) {
      if (event.type !== 'generation.completed' && event.type !== 'generation.failed') return;
      const d = event.data as WebhookPayload;
      const code = d.status === 'failed' ? String((d as { error_code?: unknown }).error_code ?? '') : '';
      await settleBudget(
        store,
        {
          generation_id: d.generation_id,
          status: d.status,
          credits_used: typeof d.credits_charged === 'number' ? d.credits_charged : null,
          error: code ? { code, message: '', retryable: false } : undefined,
          idempotency_key: key,
        },
        now(),
      );
    },
    async view(context) {
      const owner = ownerOf(context);
      const caps = await capsFor(owner, context);
      if (!caps) return { owner, limited: false };
      const at = now();
      const usage = await store.usage(owner, caps, at);
      const fields = budgetFields(usage, caps);
      const freesAt = usage.minuteFreesAt !== null && usage.minuteFreesAt > at ? usage.minuteFreesAt : null;
      return { owner, limited: true, ...fields, minute_frees_at: freesAt === null ? null : new Date(freesAt).toISOString() };
    },
  };
}

/** `GET /budget` on a handler without `budget`. */
export const noBudget = () => routeError('NOT_FOUND', 'No budgets are kept here (no budget option is configured).');
