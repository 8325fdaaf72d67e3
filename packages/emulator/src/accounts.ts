import { createHash } from 'node:crypto';
import type { Clock } from './clock.js';
import type { AccountStatus, ResolvedAccount, ResolvedConfig, Tier } from './config.js';
import { CYCLE_MS, KEY_PREFIX } from './constants.js';
import { EmulatorHttpError } from './errors.js';
import { MinuteWindow } from './ratelimit.js';

export interface TierLimits {
  perMinute: number;
  maxConcurrent: number;
  /** Credits that may be spent per 30-day cycle. */
  cycleBudget: number;
}

/**
 * Pro Plus's cycle budget is not in the contract; 30,000 sits between Pro (15,000) and
 * Ultimate (50,000) the way its rate and concurrency limits do.
 */
export const TIER_LIMITS: Record<Tier, TierLimits | null> = {
  free: null,
  standard: null,
  pro: { perMinute: 240, maxConcurrent: 5, cycleBudget: 15_000 },
  pro_plus: { perMinute: 420, maxConcurrent: 12, cycleBudget: 30_000 },
  ultimate: { perMinute: 600, maxConcurrent: 20, cycleBudget: 50_000 },
};

export type LedgerType = 'grant' | 'reserve' | 'refund' | 'adjust' | 'forfeit' | 'enhance' | 'enhance_refund';

export interface LedgerEntry {
  type: LedgerType;
  /** Signed: negative draws from the wallet, positive returns to it. */
  amount: number;
  balance_after: number;
  generation_id: string | null;
  at: string;
  note?: string;
}

const LEDGER_CAP = 50_000;

export class Account {
  readonly id: string;
  tier: Tier;
  balance: number;
  status: AccountStatus;
  untilMs: number | null;
  readonly models: ReadonlySet<string> | null;
  readonly overrides: Readonly<Record<string, number>>;
  readonly webhooks: ResolvedAccount['webhooks'];
  inFlight = 0;
  /** Net credits drawn since start (charges minus refunds). */
  spent = 0;
  readonly ledger: LedgerEntry[] = [];
  submitWindow: MinuteWindow;
  estimateWindow: MinuteWindow;
  private readonly cycleStart: number;
  private cycleIndex = 0;
  private spentCycle = 0;
  private grantedCycle = 0;

  constructor(
    cfg: ResolvedAccount,
    private readonly clock: Clock,
  ) {
    this.id = cfg.id;
    this.tier = cfg.tier;
    this.balance = 0;
    this.status = cfg.status;
    this.untilMs = cfg.until === null ? null : Date.parse(cfg.until);
    this.models = cfg.models === null ? null : new Set(cfg.models);
    this.overrides = cfg.pricingOverrides;
    this.webhooks = cfg.webhooks;
    this.cycleStart = clock.now();
    const per = TIER_LIMITS[cfg.tier]?.perMinute ?? 60;
    this.submitWindow = new MinuteWindow(per);
    this.estimateWindow = new MinuteWindow(per * 2);
    if (cfg.balance > 0) this.credit(cfg.balance, 'grant', null);
  }

  get limits(): TierLimits | null {
    return TIER_LIMITS[this.tier];
  }

  /** The status in force now: a ban, freeze or restriction with `until` lifts at that time. */
  effectiveStatus(): AccountStatus {
    if (this.status !== 'active' && this.untilMs !== null && this.clock.now() >= this.untilMs) return 'active';
    return this.status;
  }

  private rollCycle(): void {
    const idx = Math.floor((this.clock.now() - this.cycleStart) / CYCLE_MS);
    if (idx !== this.cycleIndex) {
      this.cycleIndex = idx;
      this.spentCycle = 0;
      this.grantedCycle = 0;
    }
  }

  cycleResetsAt(): number {
    this.rollCycle();
    return this.cycleStart + (this.cycleIndex + 1) * CYCLE_MS;
  }

  spentThisCycle(): number {
    this.rollCycle();
    return this.spentCycle;
  }

  grantedThisCycle(): number {
    this.rollCycle();
    return this.grantedCycle;
  }

  /** The ledger row's time, read before any field moves, so a charge is all or nothing. */
  private stamp(): string {
    return new Date(this.clock.now()).toISOString();
  }

  private log(at: string, type: LedgerType, amount: number, generationId: string | null, note?: string): void {
    const row: LedgerEntry = { type, amount, balance_after: this.balance, generation_id: generationId, at };
    if (note) row.note = note;
    this.ledger.push(row);
    if (this.ledger.length > LEDGER_CAP) this.ledger.splice(0, this.ledger.length - LEDGER_CAP);
  }

  /** Draws from the wallet (reservation or enhance). */
  charge(amount: number, type: 'reserve' | 'enhance', generationId: string): void {
    const at = this.stamp();
    this.rollCycle();
    this.balance -= amount;
    this.spent += amount;
    this.spentCycle += amount;
    this.log(at, type, -amount, generationId);
  }

  /** Returns credits to the wallet (refund, adjustment or enhance refund). */
  refund(amount: number, type: 'refund' | 'adjust' | 'enhance_refund', generationId: string): void {
    if (amount <= 0) return;
    const at = this.stamp();
    this.rollCycle();
    this.balance += amount;
    this.spent -= amount;
    this.spentCycle = Math.max(0, this.spentCycle - amount);
    this.log(at, type, amount, generationId);
  }

  credit(amount: number, type: 'grant', generationId: string | null): void {
    const at = this.stamp();
    this.rollCycle();
    this.balance += amount;
    this.grantedCycle += amount;
    this.log(at, type, amount, generationId);
  }

  note(type: 'forfeit', generationId: string, note: string): void {
    this.log(this.stamp(), type, 0, generationId, note);
  }
}

interface KeyRecord {
  account: Account;
  revoked: boolean;
}

/** Only a hash of each key is kept, as the service does; lookups are one Map read. */
const hashKey = (key: string): string => createHash('sha256').update(key).digest('hex');

export class Accounts {
  readonly byId = new Map<string, Account>();
  private readonly keys = new Map<string, KeyRecord>();

  constructor(
    private readonly config: ResolvedConfig,
    clock: Clock,
  ) {
    for (const a of config.accounts) {
      const account = new Account(a, clock);
      this.byId.set(a.id, account);
      for (const k of a.keys) this.keys.set(hashKey(k.key), { account, revoked: k.revoked });
    }
  }

  /**
   * Resolves the Authorization header to an account allowed to use the API, in the order a
   * real gateway checks: credentials first, then the platform switch, tier and account.
   */
  authenticate(header: string | undefined): Account {
    if (!header || header.trim() === '') {
      throw new EmulatorHttpError('AUTH_MISSING', 'The Authorization header is missing.');
    }
    const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!m) throw new EmulatorHttpError('AUTH_MISSING', 'The Authorization header is malformed; expected "Bearer <API_KEY>".');
    const token = m[1] as string;
    if (!token.startsWith(KEY_PREFIX)) {
      throw new EmulatorHttpError('KEY_INVALID', `The API key is invalid: keys start with "${KEY_PREFIX}".`);
    }
    const rec = this.keys.get(hashKey(token));
    if (!rec) throw new EmulatorHttpError('KEY_INVALID', 'The API key matches no key on file.');
    if (rec.revoked) throw new EmulatorHttpError('KEY_REVOKED', 'The API key was revoked.');
    const account = rec.account;
    if (this.config.apiDisabled) throw new EmulatorHttpError('API_DISABLED', 'The API is switched off platform-wide.');
    if (!account.limits) {
      throw new EmulatorHttpError('TIER_LOCKED', `API access needs Pro, Pro Plus or Ultimate; this account is ${account.tier}.`);
    }
    if (account.effectiveStatus() === 'banned') {
      throw new EmulatorHttpError('ACCOUNT_BANNED', 'The account is banned.', untilOf(account));
    }
    return account;
  }

  /** Frozen and restricted accounts can read but not generate. */
  assertCanGenerate(account: Account): void {
    const status = account.effectiveStatus();
    if (status === 'frozen') {
      throw new EmulatorHttpError('ACCOUNT_FROZEN', 'The account is frozen; generation is disabled.', untilOf(account));
    }
    if (status === 'restricted') {
      throw new EmulatorHttpError('ACCOUNT_RESTRICTED', 'The wallet is restricted; it cannot be charged.', untilOf(account));
    }
  }
}

const untilOf = (a: Account): Record<string, unknown> => (a.untilMs === null ? {} : { until: new Date(a.untilMs).toISOString() });
