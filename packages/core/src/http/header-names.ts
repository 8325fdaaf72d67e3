// The headers the client reads and sends, one constant each: `HEADERS` (types.ts, public through
// /wire) is built from these. The client imports the constants, not the object, so an app's
// bundler drops the names only the webhook receiver and the emulator use.
export const REQUEST_ID_HEADER = 'x-request-id';
export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';
export const RETRY_AFTER_HEADER = 'retry-after';
export const RATE_LIMIT_REMAINING_HEADER = 'x-ratelimit-remaining';
export const CREDITS_BALANCE_HEADER = 'x-credits-balance';
