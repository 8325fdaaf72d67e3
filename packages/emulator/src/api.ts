import type { CreditsSummary, EstimateResponse, Generation as GenerationBody, Model, ModelList, SubmitResponse } from '@mediagen/core';
import type { Account } from './accounts.js';
import { apiSupported, bySlug, entries } from './catalog.js';
import { ENHANCE_CREDITS, H } from './constants.js';
import { EmulatorHttpError } from './errors.js';
import { type Generation, isBlocked } from './generations.js';
import { parseJsonObject, type Reply } from './http.js';
import { bodyHash } from './idempotency.js';
import { filenameFor, MIME, parseLinkParts } from './output.js';
import { creditsFrom, quote } from './pricing.js';
import type { EmulatorState } from './state.js';
import { checkShape, normalize } from './validate.js';

const iso = (ms: number): string => new Date(ms).toISOString();
const thousands = new Intl.NumberFormat('en-US');
const rateLimit = (a: Account) => ({ per_minute: a.limits?.perMinute ?? 0, max_concurrent: a.limits?.maxConcurrent ?? 0 });

export function generationView(s: EmulatorState, g: Generation, base: string, rid: string): Record<string, unknown> {
  const status = s.generations.status(g);
  const terminal = status === 'completed' || status === 'failed';
  const urls = status === 'completed' ? s.signer.links(base, g.id, g.entry, g.params, s.clock.now()) : null;
  const body: GenerationBody = {
    generation_id: g.id,
    status,
    model: g.entry.model.slug,
    output_url: urls?.[0] ?? null,
    output_urls: urls,
    credits_used: g.creditsUsed,
    duration_ms: terminal ? g.durationMs : null,
    created_at: iso(g.createdAt),
    completed_at: terminal && g.completedAt !== null ? iso(g.completedAt) : null,
    request_id: rid,
  };
  const error = s.generations.error(g);
  if (error) body.error = error;
  return body;
}

export function getGeneration(s: EmulatorState, account: Account, id: string, base: string, rid: string): Reply {
  const g = s.generations.byId.get(id);
  // Unknown and foreign ids are deliberately indistinguishable.
  if (!g || g.account !== account) throw new EmulatorHttpError('NOT_FOUND', 'No generation with this id.');
  return { status: 200, body: generationView(s, g, base, rid) };
}

const modelsCache = new WeakMap<Account, string>();

export function listModels(account: Account, rid: string): Reply {
  let models = modelsCache.get(account);
  if (models === undefined) {
    models = JSON.stringify(
      entries
        .filter((e) => account.models === null || account.models.has(e.model.slug))
        .map((e): Model => ({ ...e.model, credits_from: creditsFrom(account, e) })),
    );
    modelsCache.set(account, models);
  }
  const head = JSON.stringify({
    tier: account.tier,
    credits_balance: account.balance,
    rate_limit: rateLimit(account),
    request_id: rid,
  } satisfies Omit<ModelList, 'models'>);
  return { status: 200, json: `${head.slice(0, -1)},"models":${models}}` };
}

export function getCredits(account: Account, rid: string): Reply {
  const resets = account.cycleResetsAt();
  return {
    status: 200,
    body: {
      balance: account.balance,
      tier: account.tier,
      cycle_resets_at: iso(resets),
      rate_limit: rateLimit(account),
      spent_this_cycle: account.spentThisCycle(),
      granted_this_cycle: account.grantedThisCycle(),
      request_id: rid,
    } satisfies CreditsSummary,
  };
}

/** Headers every submit answer carries once the caller is known. */
export function submitHeaders(s: EmulatorState, account: Account, estimate: boolean): Record<string, string> {
  const w = estimate ? account.estimateWindow : account.submitWindow;
  return {
    [H.rateLimitRemaining]: String(w.remaining(s.clock.now())),
    [H.creditsBalance]: thousands.format(account.balance),
  };
}

/** Counts the hit against the submit (or quote) window; throws 429 RATE_LIMIT when full. */
export function hitRateLimit(s: EmulatorState, account: Account, estimate: boolean): void {
  const now = s.clock.now();
  const w = estimate ? account.estimateWindow : account.submitWindow;
  const wait = w.retryAfter(now);
  if (wait > 0) {
    throw new EmulatorHttpError(
      'RATE_LIMIT',
      `${estimate ? 'Quote' : 'Submit'} rate limit of ${w.limit}/min exceeded.`,
      {},
      { [H.retryAfter]: String(wait) },
    );
  }
  w.record(now);
}

export interface Parsed {
  body: Record<string, unknown>;
  estimate: boolean;
}

export function parseSubmit(raw: Buffer): Parsed {
  const body = parseJsonObject(raw);
  return { body, estimate: body.estimate === true };
}

/** Only keyed submits pay for canonicalising and hashing the body. */
export const hashOf = (p: Parsed): string => bodyHash(p.body);

/** Validation, pricing and (unless an estimate) the reservation and enqueue. */
export function submit(s: EmulatorState, account: Account, p: Parsed, rid: string): Reply {
  s.accounts.assertCanGenerate(account);
  const body = p.body;
  checkShape(body);
  const slug = body.model as string;
  const entry = bySlug.get(slug);
  if (!entry) throw new EmulatorHttpError('UNKNOWN_MODEL', `No model is called "${slug}".`, { model: slug });
  if (account.models !== null && !account.models.has(slug)) {
    throw new EmulatorHttpError('MODEL_NOT_ALLOWED', `${slug} is not enabled for this account.`, { model: slug });
  }
  if (!apiSupported(entry)) {
    throw new EmulatorHttpError('MODEL_NOT_API_SUPPORTED', `${slug} needs several role-tagged inputs that the API cannot shape.`, {
      model: slug,
    });
  }
  const params = normalize(body, entry, {
    ownCompleted: (id) => {
      const g = s.generations.byId.get(id);
      return g !== undefined && g.account === account && s.generations.status(g) === 'completed';
    },
    allowLoopbackInputs: s.config.allowLoopbackInputs,
  });
  if (isBlocked(params.prompt) || isBlocked(params.negative_prompt) || isBlocked(params.input_image)) {
    throw new EmulatorHttpError(
      'CONTENT_POLICY_VIOLATION',
      'The prompt was flagged by the pre-dispatch safety check. No credits were charged.',
      {
        model: slug,
        category: 'prompt',
      },
    );
  }
  const q = quote(account, entry, params);
  const needed = q.credits + (params.enhance ? ENHANCE_CREDITS : 0);
  if (p.estimate) {
    return {
      status: 200,
      body: {
        estimate: true,
        model: slug,
        credits_estimate: q.credits,
        enhance_credits: params.enhance ? ENHANCE_CREDITS : 0,
        pricing_source: q.source,
        balance: account.balance,
        sufficient: account.balance >= needed,
        request_id: rid,
      } satisfies EstimateResponse,
    };
  }
  s.scheduler.runDue();
  const limits = account.limits;
  if (limits && account.inFlight >= limits.maxConcurrent) {
    throw new EmulatorHttpError(
      'CONCURRENCY_LIMIT',
      `${account.inFlight} generations are in flight; the limit is ${limits.maxConcurrent}.`,
      { in_flight: account.inFlight, max_concurrent: limits.maxConcurrent },
      { [H.retryAfter]: '1' },
    );
  }
  if (limits && account.spentThisCycle() + needed > limits.cycleBudget) {
    throw new EmulatorHttpError(
      'INSUFFICIENT_CREDITS',
      `The ${limits.cycleBudget.toLocaleString('en-US')}-credit budget of this 30-day cycle cannot cover ${needed} more credits.`,
      {
        balance: account.balance,
        needed,
        reason: 'cycle_budget',
        cycle_budget: limits.cycleBudget,
        spent_this_cycle: account.spentThisCycle(),
        cycle_resets_at: iso(account.cycleResetsAt()),
      },
    );
  }
  if (account.balance < needed) {
    throw new EmulatorHttpError('INSUFFICIENT_CREDITS', `The balance of ${account.balance} credits cannot cover ${needed}.`, {
      balance: account.balance,
      needed,
    });
  }
  const g = s.generations.prepare(account, entry, params, q.credits);
  const accepted: Reply = {
    status: 202,
    body: {
      generation_id: g.id,
      status: 'pending',
      model: slug,
      credits_estimate: q.credits,
      pricing_source: q.source,
      created_at: iso(g.createdAt),
      request_id: rid,
    } satisfies SubmitResponse,
  };
  // The reservation is the last step: everything that could fail has run, the answer is built.
  s.generations.commit(g, rid);
  return accepted;
}

/** Serves a signed output link: no Authorization, the signature is the credential. */
export function serveOutput(s: EmulatorState, parts: string[]): Reply {
  // Canonical numbers and valid percent-encoding only (the wire's link rules).
  const link = parseLinkParts(parts);
  if (!link || !s.signer.verify(link.generationId, link.expiry, link.signature, link.index)) {
    throw new EmulatorHttpError('LINK_INVALID', 'The link signature is invalid.');
  }
  const { generationId: id, expiry: exp, index, filename } = link;
  const now = s.clock.now();
  if (now > exp * 1000)
    throw new EmulatorHttpError('LINK_EXPIRED', `The link expired at ${iso(exp * 1000)}.`, { expired_at: iso(exp * 1000) });
  const g = s.generations.byId.get(id);
  if (
    !g ||
    s.generations.status(g) !== 'completed' ||
    index >= g.params.number_results ||
    filename !== filenameFor(g.entry, g.params, index)
  ) {
    throw new EmulatorHttpError('NOT_FOUND', 'No output at this address.');
  }
  const bytes = s.outputBytes(g, index);
  const format = g.entry.output(g.params).format;
  return {
    status: 200,
    raw: bytes,
    headers: {
      'content-type': MIME[format],
      'content-disposition': `inline; filename="${filename}"`,
      'cache-control': `private, max-age=${Math.max(0, Math.floor(exp - now / 1000))}`,
      etag: `"${g.outputKey.slice(0, 16)}${g.inputKey}-${index}"`,
      'accept-ranges': 'none',
    },
  };
}
