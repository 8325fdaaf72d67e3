import { InvalidArgumentError } from '@ai-sdk/provider';
import type { GenerateParams } from '@mediagen/core';
import { SUBMIT_FIELDS } from '@mediagen/core/wire';

/**
 * `providerOptions.mediagen`: any submit field of the contract (`quality`, `resolution`,
 * `negative_prompt`, `enhance`, `input_image`, `reference_images`, …, in the wire's snake_case),
 * plus how this call runs.
 */
export interface MediaGenCallOptions extends Omit<Partial<GenerateParams>, 'model' | 'estimate'> {
  /**
   * The submit's `Idempotency-Key`. Default: a new one per model call, reused on each of the
   * client's own retries. Pass the `data.idempotencyKey` of a failed call's error to resend it
   * without a second charge.
   */
  idempotencyKey?: string;
  /** Between status reads while waiting. Default: the contract's 2 s (image) / 4 s (video). */
  pollIntervalMs?: number;
  /** Deadline for the generation to finish. Default 15 minutes. */
  timeoutMs?: number;
}

const RUN_KEYS = ['idempotencyKey', 'pollIntervalMs', 'timeoutMs'] as const;
const FORBIDDEN = new Set<string>(['model', 'estimate']);
const ALLOWED = new Set<string>([...SUBMIT_FIELDS.filter((f) => !FORBIDDEN.has(f)), ...RUN_KEYS]);

export interface ParsedOptions {
  params: Partial<GenerateParams>;
  idempotencyKey: string | undefined;
  pollIntervalMs: number | undefined;
  timeoutMs: number | undefined;
}

const bad = (argument: string, message: string) => new InvalidArgumentError({ argument: `providerOptions.mediagen.${argument}`, message });

/**
 * Reads `providerOptions.mediagen`. Unknown keys are refused, as the service refuses unknown
 * body fields: a typo must surface, not be dropped. Values are checked by the client against
 * the model's live schema before anything is sent.
 */
export function parseProviderOptions(providerOptions: Record<string, unknown> | undefined): ParsedOptions {
  const raw = providerOptions?.mediagen;
  if (raw === undefined) return { params: {}, idempotencyKey: undefined, pollIntervalMs: undefined, timeoutMs: undefined };
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new InvalidArgumentError({ argument: 'providerOptions.mediagen', message: 'providerOptions.mediagen must be an object.' });
  }
  const params: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(raw)) {
    if (!ALLOWED.has(key)) {
      const why = FORBIDDEN.has(key) ? 'is set by the provider' : `is not a submit field (allowed: ${[...ALLOWED].join(', ')})`;
      throw bad(key, `providerOptions.mediagen.${key} ${why}.`);
    }
    if (!(RUN_KEYS as readonly string[]).includes(key) && value !== undefined) params[key] = value;
  }
  const o = raw as Record<string, unknown>;
  const key = o.idempotencyKey;
  if (key !== undefined && (typeof key !== 'string' || key === ''))
    throw bad('idempotencyKey', 'idempotencyKey must be a non-empty string.');
  for (const ms of ['pollIntervalMs', 'timeoutMs'] as const) {
    const v = o[ms];
    if (v !== undefined && (typeof v !== 'number' || !Number.isFinite(v) || v <= 0))
      throw bad(ms, `${ms} must be a number of milliseconds > 0.`);
  }
  return {
    params: params as Partial<GenerateParams>,
    idempotencyKey: key as string | undefined,
    pollIntervalMs: o.pollIntervalMs as number | undefined,
    timeoutMs: o.timeoutMs as number | undefined,
  };
}

/** The AI SDK's own convention for a caller-chosen key (its video start flow sets one per call). */
export function headerKey(headers: Record<string, string | undefined> | undefined): string | undefined {
  for (const [name, value] of Object.entries(headers ?? {})) {
    if (name.toLowerCase() === 'idempotency-key' && value) return value;
  }
  return undefined;
}

/**
 * A call's options with the key its submit is sent with: the caller's (`providerOptions`), the
 * AI SDK's `idempotency-key` header, or a new one.
 */
export function callOptions(options: {
  providerOptions?: Record<string, unknown>;
  headers?: Record<string, string | undefined>;
}): ParsedOptions & { idempotencyKey: string } {
  const run = parseProviderOptions(options.providerOptions);
  return { ...run, idempotencyKey: run.idempotencyKey ?? headerKey(options.headers) ?? globalThis.crypto.randomUUID() };
}
