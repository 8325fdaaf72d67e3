import { createHash } from 'node:crypto';
import { IDEMPOTENCY_MAX_ENTRIES, IDEMPOTENCY_TTL_MS } from './bounds.js';

/** A stored 202: replayed verbatim for the same key and body (rule 1). */
export interface StoredResponse {
  status: number;
  body: Record<string, unknown>;
  headers: Record<string, string>;
}

type Entry = ({ state: 'in_flight'; hash: string } | { state: 'done'; hash: string; response: StoredResponse }) & { at: number };

/** Key order and whitespace do not make a body "different"; values do. */
function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (v && typeof v === 'object') {
    const o = v as Record<string, unknown>;
    return `{${Object.keys(o)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(v);
}

export const bodyHash = (body: unknown): string => createHash('sha256').update(canonical(body)).digest('hex');

export type Claim = { kind: 'new' } | { kind: 'replay'; response: StoredResponse } | { kind: 'reused' } | { kind: 'in_flight' };

/**
 * Idempotency keys are scoped per account, as a key is a client-chosen string. Bounded: an
 * entry lives `ttlMs` on the emulator clock (24 h by default) and never outlives the
 * generation it answered for (`exists`), and at most `maxEntries` are kept, oldest out first.
 * The stored key is a digest, so a long client key costs no more memory than a short one.
 */
export class IdempotencyStore {
  private readonly map = new Map<string, Entry>();

  constructor(
    private readonly now: () => number,
    private readonly exists: (generationId: string) => boolean = () => true,
    private readonly ttlMs = IDEMPOTENCY_TTL_MS,
    private readonly maxEntries = IDEMPOTENCY_MAX_ENTRIES,
  ) {}

  get size(): number {
    return this.map.size;
  }

  private slot(accountId: string, key: string): string {
    return createHash('sha256').update(accountId).update('\u0000').update(key).digest('base64url');
  }

  /** Drops expired entries: the Map keeps insertion order and the clock only moves forward. */
  private sweep(now: number): void {
    for (const [k, e] of this.map) {
      if (now - e.at < this.ttlMs && this.map.size <= this.maxEntries) return;
      this.map.delete(k);
    }
  }

  claim(accountId: string, key: string, hash: string): Claim {
    const now = this.now();
    this.sweep(now);
    const k = this.slot(accountId, key);
    let e = this.map.get(k);
    if (e?.state === 'done' && !this.exists(String(e.response.body.generation_id))) {
      this.map.delete(k);
      e = undefined;
    }
    if (!e) {
      this.map.set(k, { state: 'in_flight', hash, at: now });
      this.sweep(now);
      return { kind: 'new' };
    }
    if (e.state === 'in_flight') return { kind: 'in_flight' };
    if (e.hash !== hash) return { kind: 'reused' };
    return { kind: 'replay', response: e.response };
  }

  complete(accountId: string, key: string, response: StoredResponse): void {
    const k = this.slot(accountId, key);
    const e = this.map.get(k);
    if (e) this.map.set(k, { state: 'done', hash: e.hash, response, at: e.at });
  }

  /** Nothing took effect: the key is free again so a corrected request can use it. */
  release(accountId: string, key: string): void {
    this.map.delete(this.slot(accountId, key));
  }

  clear(): void {
    this.map.clear();
  }
}
