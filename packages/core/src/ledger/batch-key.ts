import { createSha256 } from '../crypto/sha256';
import { ConfigurationError } from '../errors';
import type { GenerateParams } from '../types';
import { MAX_NESTING, nestsDeeperThan } from '../util/nesting';

/** Longest batch id: with the index and the content digest the item key stays far under 255 characters. */
export const BATCH_ID_MAX = 128;

/** A batch id is sent inside each item's `Idempotency-Key` header: visible ASCII, bounded. */
export function checkBatchId(batchId: unknown): asserts batchId is string {
  if (typeof batchId !== 'string' || !/^[\x21-\x7e]{1,128}$/.test(batchId)) {
    throw new ConfigurationError(`A batch id must be 1-${BATCH_ID_MAX} visible ASCII characters without spaces.`);
  }
}

/**
 * The params with every object's keys in order: the body sent, and what the digest covers, so
 * the same item written with its fields in another order is the same intent (the ledger compares
 * a resend's body with the recorded one as text, and the service compares it too).
 */
export function canonicalParams<T>(value: T): T {
  if (Array.isArray(value)) return value.map(canonicalParams) as T;
  if (!value || typeof value !== 'object') return value;
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(value).sort()) sorted[key] = canonicalParams((value as Record<string, unknown>)[key]);
  return sorted as T;
}

/**
 * One item's idempotency key: the batch, the item's place in it and a digest of its content.
 * Running the same batch again gives every item the key it had, so an item already recorded is
 * followed, never billed again; an item whose content changed is a new intent with a new key
 * (its old key still answers for what was billed under it).
 */
export function batchItemKey(batchId: string, index: number, params: GenerateParams): string {
  checkBatchId(batchId);
  // Before the recursive copy below meets a value from outside.
  if (nestsDeeperThan(params)) throw new ConfigurationError(`Item ${index} nests deeper than ${MAX_NESTING} levels.`);
  const hash = createSha256();
  hash.update(new TextEncoder().encode(JSON.stringify(canonicalParams(params))));
  return `batch:${batchId}:${index}:${hash.hex().slice(0, 24)}`;
}
