/** The same params in any key order give the same text: what "the same submission" means. */
export function paramsFingerprint(params: unknown): string {
  return JSON.stringify(params, (_key, value: unknown) =>
    typeof value === 'object' && value !== null && !Array.isArray(value)
      ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : value,
  );
}

/**
 * One `Idempotency-Key` per submission: the same params sent again (a double click, a retry
 * after a network error or a 5xx) carry the same key, so the service bills once; other params,
 * or the same ones after the first was accepted or refused, are a new submission with a new key.
 */
export function createSubmissionKeys(newKey: () => string = () => crypto.randomUUID()) {
  let current: { fingerprint: string; key: string } | undefined;
  return {
    /** The key for a submit of `params`: the open submission's when the params are the same. */
    keyFor(params: unknown): string {
      const fingerprint = paramsFingerprint(params);
      if (current?.fingerprint !== fingerprint) current = { fingerprint, key: newKey() };
      return current.key;
    },
    /** The submission with this key is over (accepted, or refused for good): the next submit is a new one. */
    settle(key: string): void {
      if (current?.key === key) current = undefined;
    },
  };
}
