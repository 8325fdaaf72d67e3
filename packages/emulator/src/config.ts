import { readFileSync } from 'node:fs';
import { EMULATOR_API_KEY, EMULATOR_WEBHOOK_SECRET } from '@mediagen/core/wire';
import { bySlug } from './catalog.js';
import { KEY_PREFIX, MAX_WEBHOOK_ENDPOINTS } from './constants.js';
import { DEFAULT_INPUT_MAX_BYTES, DEFAULT_INPUT_TIMEOUT_MS } from './inputs.js';

export type Tier = 'free' | 'standard' | 'pro' | 'pro_plus' | 'ultimate';
export type AccountStatus = 'active' | 'banned' | 'frozen' | 'restricted';

export interface KeyConfig {
  key: string;
  revoked?: boolean;
}

export interface WebhookConfig {
  url: string;
  secret: string;
  enabled?: boolean;
}

export interface AccountConfig {
  id: string;
  tier: Tier;
  balance?: number;
  status?: AccountStatus;
  /** ISO 8601; the ban or freeze lifts at this emulator-clock time. */
  until?: string | null;
  keys: KeyConfig[];
  /** Allowlist of slugs; omitted means every model. */
  models?: string[];
  /** `{ slug: N }`: the account pays N for the model's default request. */
  pricingOverrides?: Record<string, number>;
  webhooks?: WebhookConfig[];
}

export interface EmulatorConfig {
  /** Multiplies every simulated duration; 1 is real time. */
  timeScale?: number;
  requireHttpsWebhooks?: boolean;
  apiDisabled?: boolean;
  /**
   * Fetch input links on loopback (`127.0.0.0/8`, `::1`, `localhost`), over `http:` too, for
   * local development. The real service never would: it fetches public https links only.
   * Default false.
   */
  allowLoopbackInputs?: boolean;
  /** Real milliseconds to fetch one input link, redirects included. Default 10,000. */
  inputTimeoutMs?: number;
  /** Largest input per kind, in bytes. Defaults: image 20 MB, video 200 MB, audio 50 MB (MB = 2^20 bytes). */
  inputMaxBytes?: InputMaxBytes;
  accounts?: AccountConfig[];
}

/** Size limits of input links, per kind of media. */
export interface InputMaxBytes {
  image?: number;
  video?: number;
  audio?: number;
}

export interface ResolvedAccount {
  id: string;
  tier: Tier;
  balance: number;
  status: AccountStatus;
  until: string | null;
  keys: Required<KeyConfig>[];
  models: string[] | null;
  pricingOverrides: Record<string, number>;
  webhooks: Required<WebhookConfig>[];
}

export interface ResolvedConfig {
  timeScale: number;
  requireHttpsWebhooks: boolean;
  apiDisabled: boolean;
  allowLoopbackInputs: boolean;
  inputTimeoutMs: number;
  inputMaxBytes: Required<InputMaxBytes>;
  accounts: ResolvedAccount[];
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

export const TIERS: readonly Tier[] = ['free', 'standard', 'pro', 'pro_plus', 'ultimate'];
export const STATUSES: readonly AccountStatus[] = ['active', 'banned', 'frozen', 'restricted'];

/**
 * The environment variables the config reads. A plain record rather than `NodeJS.ProcessEnv`,
 * so the published types do not need `@types/node` (process.env fits it).
 */
export type EnvLike = Readonly<Record<string, string | undefined>>;

export const DEFAULT_KEY = EMULATOR_API_KEY;
export const DEFAULT_ACCOUNT_ID = 'acct_demo';

/** The account used when no config is given; its webhook comes from the environment. */
export function defaultAccounts(env: EnvLike = process.env): AccountConfig[] {
  const url = env.MEDIAGEN_WEBHOOK_URL;
  return [
    {
      id: DEFAULT_ACCOUNT_ID,
      tier: 'pro',
      balance: 15_000,
      status: 'active',
      until: null,
      keys: [{ key: DEFAULT_KEY, revoked: false }],
      webhooks: url ? [{ url, secret: env.MEDIAGEN_WEBHOOK_SECRET ?? EMULATOR_WEBHOOK_SECRET, enabled: true }] : [],
    },
  ];
}

type Obj = Record<string, unknown>;

const fail = (path: string, msg: string): never => {
  throw new ConfigError(`Invalid emulator config at ${path}: ${msg}`);
};

function object(v: unknown, path: string, allowed: readonly string[]): Obj {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) fail(path, 'expected an object');
  const o = v as Obj;
  for (const k of Object.keys(o)) {
    if (!allowed.includes(k)) fail(path, `unknown key "${k}" (allowed: ${allowed.join(', ')})`);
  }
  return o;
}

function opt<T>(o: Obj, key: string, path: string, check: (v: unknown, p: string) => T, dflt: T): T {
  return o[key] === undefined ? dflt : check(o[key], `${path}.${key}`);
}

const bool = (v: unknown, p: string): boolean => (typeof v === 'boolean' ? v : fail(p, 'expected true or false'));
const str = (v: unknown, p: string): string => (typeof v === 'string' && v.length > 0 ? v : fail(p, 'expected a non-empty string'));
const count = (v: unknown, p: string): number =>
  typeof v === 'number' && Number.isInteger(v) && v >= 0 ? v : fail(p, 'expected a non-negative integer');
const list = (v: unknown, p: string): unknown[] => (Array.isArray(v) ? v : fail(p, 'expected an array'));
function oneOf<T extends string>(values: readonly T[]) {
  return (v: unknown, p: string): T =>
    values.includes(v as T) ? (v as T) : fail(p, `expected one of ${values.join(', ')}, got ${JSON.stringify(v)}`);
}
const slug = (v: unknown, p: string): string => {
  const s = str(v, p);
  return bySlug.has(s) ? s : fail(p, `unknown model "${s}" (known: ${[...bySlug.keys()].join(', ')})`);
};

/** Validates a parsed config and fills every default. Throws ConfigError naming key and path. */
export function resolveConfig(input: unknown, env: EnvLike = process.env): ResolvedConfig {
  const root = object(input ?? {}, 'config', [
    'timeScale',
    'requireHttpsWebhooks',
    'apiDisabled',
    'allowLoopbackInputs',
    'inputTimeoutMs',
    'inputMaxBytes',
    'accounts',
  ]);
  const timeScale = opt(
    root,
    'timeScale',
    'config',
    (v, p) => (typeof v === 'number' && Number.isFinite(v) && v > 0 ? v : fail(p, 'expected a number above 0')),
    1,
  );
  const requireHttpsWebhooks = opt(root, 'requireHttpsWebhooks', 'config', bool, false);
  const apiDisabled = opt(root, 'apiDisabled', 'config', bool, false);
  const allowLoopbackInputs = opt(root, 'allowLoopbackInputs', 'config', bool, false);
  const positive = (v: unknown, p: string): number =>
    typeof v === 'number' && Number.isSafeInteger(v) && v > 0 ? v : fail(p, 'expected a whole number above 0');
  const inputTimeoutMs = opt(root, 'inputTimeoutMs', 'config', positive, DEFAULT_INPUT_TIMEOUT_MS);
  const sizes = root.inputMaxBytes === undefined ? {} : object(root.inputMaxBytes, 'config.inputMaxBytes', ['image', 'video', 'audio']);
  const inputMaxBytes = {
    image: opt(sizes, 'image', 'config.inputMaxBytes', positive, DEFAULT_INPUT_MAX_BYTES.image),
    video: opt(sizes, 'video', 'config.inputMaxBytes', positive, DEFAULT_INPUT_MAX_BYTES.video),
    audio: opt(sizes, 'audio', 'config.inputMaxBytes', positive, DEFAULT_INPUT_MAX_BYTES.audio),
  };
  const rawAccounts = root.accounts === undefined ? defaultAccounts(env) : list(root.accounts, 'config.accounts');

  const ids = new Set<string>();
  const keys = new Set<string>();
  const accounts = rawAccounts.map((raw, i): ResolvedAccount => {
    const path = `config.accounts[${i}]`;
    const a = object(raw, path, ['id', 'tier', 'balance', 'status', 'until', 'keys', 'models', 'pricingOverrides', 'webhooks']);
    const id = str(a.id, `${path}.id`);
    if (ids.has(id)) fail(`${path}.id`, `duplicate account id "${id}"`);
    ids.add(id);
    const tier = oneOf(TIERS)(a.tier, `${path}.tier`);
    const until = opt(
      a,
      'until',
      path,
      (v, p) => (v === null ? null : !Number.isNaN(Date.parse(str(v, p))) ? (v as string) : fail(p, 'expected an ISO 8601 date or null')),
      null as string | null,
    );
    const accountKeys = list(a.keys ?? [], `${path}.keys`).map((k, j) => {
      const kp = `${path}.keys[${j}]`;
      const ko = object(k, kp, ['key', 'revoked']);
      const key = str(ko.key, `${kp}.key`);
      if (!key.startsWith(KEY_PREFIX)) fail(`${kp}.key`, `a key starts with "${KEY_PREFIX}"`);
      if (keys.has(key)) fail(`${kp}.key`, 'the same key is listed twice');
      keys.add(key);
      return { key, revoked: opt(ko, 'revoked', kp, bool, false) };
    });
    const models = a.models === undefined ? null : list(a.models, `${path}.models`).map((m, j) => slug(m, `${path}.models[${j}]`));
    const overrides: Record<string, number> = {};
    if (a.pricingOverrides !== undefined) {
      const po = object(a.pricingOverrides, `${path}.pricingOverrides`, [...bySlug.keys()]);
      for (const [k, v] of Object.entries(po)) overrides[k] = count(v, `${path}.pricingOverrides.${k}`);
    }
    const hooks = list(a.webhooks ?? [], `${path}.webhooks`);
    if (hooks.length > MAX_WEBHOOK_ENDPOINTS) fail(`${path}.webhooks`, `at most ${MAX_WEBHOOK_ENDPOINTS} endpoints per account`);
    const webhooks = hooks.map((h, j) => {
      const hp = `${path}.webhooks[${j}]`;
      const ho = object(h, hp, ['url', 'secret', 'enabled']);
      const url = str(ho.url, `${hp}.url`);
      let parsed: URL;
      try {
        parsed = new URL(url);
      } catch {
        return fail(`${hp}.url`, `not a URL: ${url}`);
      }
      if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') fail(`${hp}.url`, 'expected an http(s) URL');
      if (requireHttpsWebhooks && parsed.protocol !== 'https:') {
        fail(`${hp}.url`, 'requireHttpsWebhooks is true, so only https URLs are usable');
      }
      return { url, secret: str(ho.secret, `${hp}.secret`), enabled: opt(ho, 'enabled', hp, bool, true) };
    });
    return {
      id,
      tier,
      balance: opt(a, 'balance', path, count, 0),
      status: opt(a, 'status', path, oneOf(STATUSES), 'active'),
      until,
      keys: accountKeys,
      models,
      pricingOverrides: overrides,
      webhooks,
    };
  });
  return { timeScale, requireHttpsWebhooks, apiDisabled, allowLoopbackInputs, inputTimeoutMs, inputMaxBytes, accounts };
}

/** `config` may be a parsed object or a path to a JSON file. */
export function loadConfig(config: EmulatorConfig | string | undefined, env: EnvLike = process.env): ResolvedConfig {
  if (typeof config !== 'string') return resolveConfig(config ?? {}, env);
  let text: string;
  try {
    text = readFileSync(config, 'utf8');
  } catch (e) {
    throw new ConfigError(`Cannot read emulator config ${config}: ${(e as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (e) {
    throw new ConfigError(`Emulator config ${config} is not valid JSON: ${(e as Error).message}`);
  }
  return resolveConfig(parsed, env);
}
