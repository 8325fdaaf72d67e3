/** Longest `Idempotency-Key` the SDK sends or passes on (the spec says "any client-chosen string"). */
export const IDEMPOTENCY_KEY_MAX = 255;

/** What a valid key is, in words: for the error that refuses one. */
export const IDEMPOTENCY_KEY_RULE = 'The Idempotency-Key header must be 1-255 visible ASCII characters.';

/**
 * `isIdempotencyKey(key)`: whether `key` can be sent as the header (visible ASCII, 1 to
 * `IDEMPOTENCY_KEY_MAX` characters). Kept beside the client, which checks every key it sends.
 */
export { isIdempotencyKey } from '../util/idempotency-key';
