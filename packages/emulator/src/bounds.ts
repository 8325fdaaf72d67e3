/**
 * The emulator's own resource bounds: what it refuses so that no request, however hostile,
 * can make it answer 5xx, hold a socket for minutes or grow without limit. These are not
 * contract facts (those come from `@mediagen/core/wire`); they bound the emulator process.
 */

/** Request body cap on every route, submit and controls alike; more is `413 INVALID_BODY`. */
export const BODY_LIMIT = 1024 * 1024;

/** JSON nesting deeper than this is `422 INVALID_BODY` (a submit needs 2: a list of URLs). */
export const MAX_JSON_DEPTH = 64;

/** Time to receive a request's headers; Node's default is 60 s. */
export const HEADERS_TIMEOUT_MS = 10_000;
/** Time to receive a whole request, body included (a slow body gets `408`); Node's default is 300 s. */
export const REQUEST_TIMEOUT_MS = 15_000;
/** How often Node sweeps for requests past those timeouts (its default, 30 s, would let them run long). */
export const TIMEOUT_CHECK_INTERVAL_MS = 1_000;

/** Generation records kept; past it the oldest finished ones are dropped. */
export const GENERATION_RETAIN = 200_000;

/**
 * An idempotency key is remembered for 24 h on the emulator clock (Stripe's window), never
 * longer than the generation record it answered for, and the store holds at most as many
 * keys as there are retained generation records.
 */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
export const IDEMPOTENCY_MAX_ENTRIES = GENERATION_RETAIN;

/** The emulator clock may run at most this far ahead of real time (100 years). */
export const MAX_CLOCK_OFFSET_MS = 100 * 365 * 24 * 60 * 60 * 1000;

/** Fault controls: bounded so an injected fault cannot overflow a timer or pin memory. */
export const FAULT_MAX_DELAY_MS = 60_000;
export const FAULT_MAX_COUNT = 1_000_000;
export const FAULTS_MAX = 1_000;
export const FAULT_MESSAGE_MAX = 1_000;
