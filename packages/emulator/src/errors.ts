/**
 * A request-time failure, turned into the spec's error body by the router. Named apart from
 * core's `APIError` (a client-side error the SDK throws): this one is what the emulator answers.
 */
export class EmulatorHttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

/**
 * The `next` field: what a client should do about each code. The wording follows the
 * spec's client retry guidance so that a human reading a log knows the remedy.
 */
const NEXT: Record<string, string> = {
  AUTH_MISSING: 'Send the header "Authorization: Bearer <API_KEY>".',
  UNAUTHORIZED: 'Send the header "Authorization: Bearer <API_KEY>".',
  KEY_INVALID: 'Check the key: it starts with svc_live_ and is shown once in Settings > API & Webhooks.',
  KEY_REVOKED: 'This key was revoked for good. Create a new key in Settings > API & Webhooks.',
  INSUFFICIENT_CREDITS: 'Top up credits or lower the cost of the request (fewer results, lower quality), then resend.',
  TIER_LOCKED: 'Upgrade to Pro, Pro Plus or Ultimate to use the API.',
  MODEL_NOT_ALLOWED: 'Pick a model from GET /api/v1/models; that list is filtered to this account.',
  API_DISABLED: 'The API is switched off platform-wide. Try again later.',
  ACCOUNT_BANNED: 'Contact support. If `until` is set, the ban lifts then.',
  ACCOUNT_FROZEN: 'Generation is disabled on this account. Contact support; if `until` is set it lifts then.',
  ACCOUNT_RESTRICTED: 'The wallet is restricted. Contact support.',
  CONTENT_POLICY_VIOLATION: 'Change the prompt or inputs; resending as is gives the same result.',
  ENHANCE_NOT_SUPPORTED: 'Remove `enhance`, or use a model whose enhance_supported is true.',
  OPTION_NOT_AVAILABLE: 'Pick a value that this model offers for the mode and settings sent (see GET /api/v1/models).',
  NOT_FOUND: 'Check the id: it must be a generation_id returned to this account.',
  UNKNOWN_MODEL: 'Use a slug from GET /api/v1/models.',
  INVALID_BODY: 'Fix the field named in details.field, then resend.',
  MISSING_PROMPT: 'Send a non-empty `prompt`.',
  MODEL_NOT_API_SUPPORTED: 'Use this model from the web studio; the API cannot shape its inputs.',
  INPUT_VIDEO_NOT_SUPPORTED: 'Remove `input_video`; this model bills by the exact clip length and is studio-only for that mode.',
  INVALID_NUMBER_RESULTS: "Send number_results within the model's range (see GET /api/v1/models).",
  MODEL_CONTRACT_VIOLATION: "Send the inputs this model requires (see the model's modes and example_request).",
  IDEMPOTENCY_KEY_REUSED: 'Use a new Idempotency-Key for a different body.',
  IDEMPOTENT_REQUEST_IN_FLIGHT: 'Wait 3 seconds (Retry-After) and resend with the same key.',
  RATE_LIMIT: 'Wait Retry-After seconds, then resend.',
  CONCURRENCY_LIMIT: 'Wait for an in-flight generation to finish, then resend.',
  INTERNAL_ERROR: 'Retry with backoff starting at 1 s, doubling, capped at 30 s.',
  SAFETY_CHECK_UNAVAILABLE: 'Nothing was charged. Retry in a few minutes.',
  PROVIDER_DOWN: 'Retry after 60 s.',
  LINK_INVALID: 'Fetch a fresh link from GET /api/v1/generations/{id}.',
  LINK_EXPIRED: 'Fetch a fresh link from GET /api/v1/generations/{id}.',
  METHOD_NOT_ALLOWED: 'Use the method listed in the Allow header.',
  PAYLOAD_TOO_LARGE: 'Send a smaller body.',
  BAD_REQUEST: 'Send a well-formed HTTP/1.1 request.',
  REQUEST_TIMEOUT: 'Send the whole request (headers and body) promptly.',
  HEADERS_TOO_LARGE: 'Send smaller request headers.',
  CONTROL_FORBIDDEN: 'Call the test controls from the same machine (Host 127.0.0.1, localhost or [::1]), not from a web page.',
  UNSUPPORTED_MEDIA_TYPE: 'Send the body as JSON with Content-Type: application/json.',
};

export const nextFor = (code: string): string => NEXT[code] ?? 'See the API reference for this code.';

export const DEFAULT_MESSAGES: Record<string, string> = {
  INTERNAL_ERROR: 'Internal error before billing or enqueue.',
  SAFETY_CHECK_UNAVAILABLE: 'The image-safety checker is unavailable.',
  PROVIDER_DOWN: 'The provider is down.',
  RATE_LIMIT: 'Rate limit exceeded.',
};
