/** Sent as a header: visible ASCII only (a newline would make fetch fail, and be retried as a network error). */
export function isIdempotencyKey(key: unknown): key is string {
  return typeof key === 'string' && /^[\x20-\x7e]{1,255}$/.test(key);
}
