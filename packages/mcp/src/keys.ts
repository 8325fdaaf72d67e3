/**
 * The ledger idempotency key of a `generate` call. The ledger's keys are global (the record's
 * primary key) and the service's are per account, so each is scoped to its owner here: two
 * users' agents sending the same `request_key`, or the same arguments, never name one submit.
 * A hex digest: any owner, session or request-key text makes a valid `Idempotency-Key`.
 */
export async function generateKey(input: { owner: string; sessionId: string; params: unknown; requestKey?: string | undefined }) {
  const scope =
    input.requestKey !== undefined
      ? ['request_key', input.owner, input.requestKey]
      : ['session', input.owner, input.sessionId, canonicalJson(input.params)];
  const digest = await globalThis.crypto.subtle.digest('SHA-256', new TextEncoder().encode(JSON.stringify(scope)));
  return `mcp_${[...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join('')}`;
}

/** JSON with object keys sorted at every level: the same arguments in another order are the same call. */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
}
