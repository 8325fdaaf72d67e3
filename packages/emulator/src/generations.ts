import { createHash, randomUUID } from 'node:crypto';
import type { GenerationError, GenerationStatus } from '@mediagen/core';
import type { Account } from './accounts.js';
import { GENERATION_RETAIN } from './bounds.js';
import type { CatalogEntry, Normalized } from './catalog.js';
import { type Clock, monotonic } from './clock.js';
import { ENHANCE_CREDITS } from './constants.js';
import type { HeldRequests } from './faults.js';
import type { Thumb } from './media/thumb.js';
import type { Scheduler } from './scheduler.js';

type Outcome = { kind: 'ok' } | { kind: 'fail'; error: GenerationError } | { kind: 'flag' };

export interface Generation {
  id: string;
  account: Account;
  entry: CatalogEntry;
  params: Normalized;
  /** Digest of the params that shape the output: same seed and params, same bytes. */
  outputKey: string;
  createdAt: number;
  createdMono: number;
  pickupMono: number;
  doneMono: number;
  outcome: Outcome;
  reserved: number;
  creditsUsed: number;
  state: 'active' | 'completed' | 'failed';
  completedAt: number | null;
  durationMs: number | null;
  enhance: 'none' | 'scheduled' | 'charged' | 'refunded' | 'skipped';
  enhanceFails: boolean;
  /** `[[hold]]` in the prompt: stays `processing` past its render time until a test releases it. */
  held: boolean;
  /**
   * Its input links: `none` (it has none), `waiting` (fetched when processing starts),
   * `fetching` (it stays `processing` until they are read, past its render time if need be), `read`.
   */
  inputs: 'none' | 'waiting' | 'fetching' | 'read';
  /** The thumbnail of its input image, which its outputs are drawn from. */
  source?: Thumb;
  /** Digest of the input bytes read (empty without inputs): same params, other bytes, other output. */
  inputKey: string;
}

/** What reading a generation's inputs gave: the picture to draw from, or the failure to end with. */
export type InputsRead = { ok: true; source?: Thumb; key: string } | { ok: false; error: GenerationError };
/** Fetches and reads every input of a generation; never rejects. */
export type InputReader = (g: Generation, signal: AbortSignal) => Promise<InputsRead>;

const hasInputs = (p: Normalized): boolean =>
  p.input_image !== undefined || p.input_video !== undefined || p.input_audio !== undefined || p.reference_images.length > 0;

const FAIL = /\[\[fail:([A-Za-z0-9_.-]+)\]\]/;
const RETRYABLE = new Set(['model_unavailable', 'rate_limited']);
const FAIL_MESSAGES: Record<string, string> = {
  model_unavailable: 'The model is temporarily unavailable.',
  rate_limited: 'The upstream provider rate-limited this job.',
  content_blocked: 'The provider blocked the content.',
  upstream_detail: 'The provider rejected the request.',
  unknown: 'The generation failed for an unknown reason.',
};

export const isBlocked = (text: string | undefined): boolean => text?.includes('[[blocked]]') === true;

/** Reads the test markers of a prompt into the generation's fate. */
function outcomeOf(prompt: string): Outcome {
  if (prompt.includes('[[flag]]')) return { kind: 'flag' };
  const m = FAIL.exec(prompt);
  if (m) {
    const code = m[1] as string;
    if (code === 'CONTENT_POLICY_VIOLATION') return { kind: 'flag' };
    return {
      kind: 'fail',
      error: { code, message: FAIL_MESSAGES[code] ?? `The generation failed (${code}).`, retryable: RETRYABLE.has(code) },
    };
  }
  return { kind: 'ok' };
}

const between = ([lo, hi]: [number, number]): number => lo + Math.random() * (hi - lo);

function outputKey(entry: CatalogEntry, p: Normalized): string {
  const { number_results: _n, enhance: _e, ...shaping } = p;
  return createHash('sha256').update(entry.model.slug).update(JSON.stringify(shaping)).digest('hex');
}

/** 32-bit seed for output `index`, derived from the params digest. */
export const seedFor = (g: Generation, index: number): number =>
  createHash('sha256').update(`${g.outputKey}:${index}`).digest().readUInt32BE(0);

/**
 * The generation store and its state machine. States are derived from timestamps when read
 * (pending until pick-up, processing until done); only the terminal step is scheduled, as it
 * moves credits, frees a concurrency slot and sends webhooks.
 */
export class Generations {
  readonly byId = new Map<string, Generation>();

  constructor(
    private readonly clock: Clock,
    private readonly scheduler: Scheduler,
    private readonly timeScale: number,
    private readonly onTerminal: (g: Generation) => void,
    private readonly holds: HeldRequests,
    private readonly readInputs: InputReader = async () => ({ ok: true, key: '' }),
  ) {}

  /** Input downloads in progress, by generation id: a reset or close aborts them. */
  private readonly fetching = new Map<string, AbortController>();

  /**
   * A new generation with every field computed and no side effect yet: nothing charged, stored
   * or scheduled. A submit builds its 202 from it, then `commit`s as its very last step, so
   * nothing that can fail runs between the reservation and the answer.
   */
  prepare(account: Account, entry: CatalogEntry, params: Normalized, reserved: number): Generation {
    const now = monotonic();
    const timing = entry.timing(params);
    const pickup = between(timing.pickup) * 1000 * this.timeScale;
    const render = between(timing.render) * 1000 * this.timeScale;
    return {
      id: randomUUID(),
      account,
      entry,
      params,
      outputKey: outputKey(entry, params),
      createdAt: this.clock.now(),
      createdMono: now,
      pickupMono: now + pickup,
      doneMono: now + pickup + render,
      outcome: outcomeOf(params.prompt),
      reserved,
      creditsUsed: reserved,
      state: 'active',
      completedAt: null,
      durationMs: null,
      enhance: params.enhance ? 'scheduled' : 'none',
      enhanceFails: params.prompt.includes('[[enhance:fail]]'),
      held: params.prompt.includes('[[hold]]'),
      inputs: hasInputs(params) ? 'waiting' : 'none',
      inputKey: '',
    };
  }

  /**
   * The reservation: charges the account, counts the job in flight, stores and schedules it.
   * All or nothing: if any step after the charge throws, the charge is refunded and the record
   * dropped before the error goes on, so no error answer ever leaves a reservation behind.
   */
  commit(g: Generation, requestId = ''): void {
    const account = g.account;
    account.charge(g.reserved, 'reserve', g.id);
    let counted = false;
    try {
      account.inFlight++;
      counted = true;
      this.byId.set(g.id, g);
      if (g.enhance === 'scheduled') this.scheduler.at(g.pickupMono, () => this.runEnhance(g));
      if (g.inputs === 'waiting') this.scheduler.at(g.pickupMono, () => this.startInputs(g));
      this.scheduler.at(g.doneMono, () => this.finalize(g));
      this.evict();
      if (g.held) this.holdRender(g, requestId);
    } catch (e) {
      if (this.byId.get(g.id) === g) this.byId.delete(g.id);
      if (counted) account.inFlight = Math.max(0, account.inFlight - 1);
      // A task already scheduled for it finds it terminal and does nothing.
      g.state = 'failed';
      g.enhance = 'none';
      account.refund(g.reserved, 'refund', g.id);
      throw e;
    }
  }

  /** `prepare` then `commit`, for callers with nothing to build in between. */
  create(account: Account, entry: CatalogEntry, params: Normalized, reserved: number): Generation {
    const g = this.prepare(account, entry, params, reserved);
    this.commit(g);
    return g;
  }

  /**
   * Keeps `g` in flight until the test releases it (or the hold's time cap ends it); then it
   * finishes as scheduled, at once if its render time has passed. A reset or close drops it.
   */
  private holdRender(g: Generation, requestId: string): void {
    void this.holds.hold('render', requestId, g.id).then((how) => {
      g.held = false;
      if (how === 'released' && monotonic() >= g.doneMono) this.finalize(g);
    });
  }

  /**
   * Processing starts with fetching the inputs, as the service does. A failure ends the
   * generation at once, `failed` and refunded; success finishes it when its render time is up
   * (at once if that has passed while downloading).
   */
  private startInputs(g: Generation): void {
    if (g.inputs !== 'waiting' || g.state !== 'active') return;
    g.inputs = 'fetching';
    const abort = new AbortController();
    this.fetching.set(g.id, abort);
    void this.readInputs(g, abort.signal).then((read) => {
      if (this.fetching.get(g.id) === abort) this.fetching.delete(g.id);
      if (abort.signal.aborted || g.state !== 'active' || this.byId.get(g.id) !== g) return;
      g.inputs = 'read';
      if (read.ok) {
        g.inputKey = read.key;
        if (read.source) g.source = read.source;
        if (monotonic() >= g.doneMono) this.finalize(g);
      } else {
        // The render never ran: no marker of the prompt applies.
        g.outcome = { kind: 'fail', error: read.error };
        this.finalize(g);
      }
    });
  }

  /** The state now; finishing a due generation first so a read never lags the clock. */
  status(g: Generation): GenerationStatus {
    if (g.state !== 'active') return g.state;
    const now = monotonic();
    if (now >= g.doneMono && !g.held) {
      this.finalize(g);
      return g.state === 'active' ? 'processing' : g.state;
    }
    if (now >= g.pickupMono) {
      this.startInputs(g);
      return 'processing';
    }
    return 'pending';
  }

  error(g: Generation): GenerationError | undefined {
    if (g.state !== 'failed') return undefined;
    if (g.outcome.kind === 'flag') {
      return {
        code: 'CONTENT_POLICY_VIOLATION',
        message: 'The output was flagged by post-generation safety review. Credits are forfeited.',
        retryable: false,
      };
    }
    return g.outcome.kind === 'fail' ? g.outcome.error : undefined;
  }

  /** Enhance is billed in the background once the job is picked up; a failed fit is refunded. */
  private runEnhance(g: Generation): void {
    if (g.enhance !== 'scheduled') return;
    if (g.account.balance < ENHANCE_CREDITS) {
      g.enhance = 'skipped';
      return;
    }
    g.account.charge(ENHANCE_CREDITS, 'enhance', g.id);
    g.enhance = 'charged';
    if (g.enhanceFails) {
      g.account.refund(ENHANCE_CREDITS, 'enhance_refund', g.id);
      g.enhance = 'refunded';
    }
  }

  finalize(g: Generation): void {
    if (g.state !== 'active' || g.held) return;
    if (g.inputs === 'waiting') this.startInputs(g);
    if (g.inputs === 'fetching') return;
    if (g.enhance === 'scheduled') this.runEnhance(g);
    const account = g.account;
    switch (g.outcome.kind) {
      case 'ok': {
        const final = g.entry.finalCharge ? g.entry.finalCharge(g.reserved, parseInt(g.outputKey.slice(0, 8), 16)) : g.reserved;
        if (final < g.reserved) account.refund(g.reserved - final, 'adjust', g.id);
        g.creditsUsed = Math.min(final, g.reserved);
        g.state = 'completed';
        break;
      }
      case 'fail':
        account.refund(g.reserved, 'refund', g.id);
        if (g.enhance === 'charged') {
          account.refund(ENHANCE_CREDITS, 'enhance_refund', g.id);
          g.enhance = 'refunded';
        }
        g.creditsUsed = 0;
        g.state = 'failed';
        break;
      case 'flag':
        account.note('forfeit', g.id, 'CONTENT_POLICY_VIOLATION: credits forfeited');
        g.state = 'failed';
        break;
    }
    g.completedAt = this.clock.now();
    g.durationMs = Math.max(0, Math.round(monotonic() - g.createdMono));
    account.inFlight = Math.max(0, account.inFlight - 1);
    this.onTerminal(g);
  }

  /** Keeps memory bounded for long-running dev sessions: the oldest finished records go first. */
  private evict(): void {
    if (this.byId.size <= GENERATION_RETAIN) return;
    for (const [id, g] of this.byId) {
      if (g.state !== 'active') {
        this.byId.delete(id);
        if (this.byId.size <= GENERATION_RETAIN) return;
      }
    }
  }

  /** Ends every input download in progress (a reset or close). */
  abortInputs(): void {
    for (const abort of this.fetching.values()) abort.abort();
    this.fetching.clear();
  }

  clear(): void {
    this.abortInputs();
    this.byId.clear();
  }
}
