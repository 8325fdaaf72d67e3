import { createHash } from 'node:crypto';

/** A stored 202: replayed verbatim for the same key and body (rule 1). */
export interface StoredResponse {
  status: number;
  body: Record<string, unknown>;
  headers: Record<string, string>;
}

type Entry = { state: 'in_flight'; hash: string } | { state: 'done'; hash: string; response: StoredResponse };

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

/** Idempotency keys are scoped per account, as a key is a client-chosen string. */
export class IdempotencyStore {
  private readonly map = new Map<string, Entry>();

  claim(accountId: string, key: string, hash: string): Claim {
    const k = `${accountId}\u0000${key}`;
    const e = this.map.get(k);
    if (!e) {
      this.map.set(k, { state: 'in_flight', hash });
      return { kind: 'new' };
    }
    if (e.state === 'in_flight') return { kind: 'in_flight' };
    if (e.hash !== hash) return { kind: 'reused' };
    return { kind: 'replay', response: e.response };
  }

  complete(accountId: string, key: string, response: StoredResponse): void {
    const k = `${accountId}\u0000${key}`;
    const e = this.map.get(k);
    if (e) this.map.set(k, { state: 'done', hash: e.hash, response });
  }

  /** Nothing took effect: the key is free again so a corrected request can use it. */
  release(accountId: string, key: string): void {
    this.map.delete(`${accountId}\u0000${key}`);
  }

  clear(): void {
    this.map.clear();
  }
}
