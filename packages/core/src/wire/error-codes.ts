/**
 * Every error code the project answers or reads, with its HTTP status, whether sending the same
 * request again may succeed (spec: client retry guidance), and the `next` hint. One table for
 * the service's codes (spec: Errors), the app routes of `@mediagen/core/server` and the webhook
 * receiver's refusals, so the emulator, the handler and every adapter answer a case alike.
 */
export interface ErrorCodeInfo {
  status: number;
  retryable: boolean;
  next: string;
}

const permanent = (status: number, next: string): ErrorCodeInfo => ({ status, retryable: false, next });
const retried = (status: number, next: string): ErrorCodeInfo => ({ status, retryable: true, next });

const AUTH = 'Send the header "Authorization: Bearer <API_KEY>".';
const RESEND = 'The service retries the delivery.';

/**
 * The `next` of a 404 for a route a server does not have (the emulator's, or the handler's when
 * it was not configured to serve one). The code stays `NOT_FOUND` (every 404 of the project has
 * that one code), but the code table's hint is about a generation id, which such a request never named.
 */
export const NO_SUCH_ROUTE_NEXT = 'Check the method and path against the routes this server serves (under its base path).';

export const ERROR_CODES = {
  // The service's own codes (spec: Errors, Codes).
  AUTH_MISSING: permanent(401, AUTH),
  UNAUTHORIZED: permanent(401, AUTH),
  KEY_INVALID: permanent(401, 'Check the key: it starts with svc_live_ and is shown once in Settings > API & Webhooks.'),
  KEY_REVOKED: permanent(401, 'This key was revoked for good. Create a new key in Settings > API & Webhooks.'),
  INSUFFICIENT_CREDITS: permanent(402, 'Top up credits or lower the cost of the request (fewer results, lower quality), then resend.'),
  TIER_LOCKED: permanent(403, 'Upgrade to Pro, Pro Plus or Ultimate to use the API.'),
  MODEL_NOT_ALLOWED: permanent(403, 'Pick a model from GET /api/v1/models; that list is filtered to this account.'),
  API_DISABLED: permanent(403, 'The API is switched off platform-wide. Try again later.'),
  ACCOUNT_BANNED: permanent(403, 'Contact support. If `until` is set, the ban lifts then.'),
  ACCOUNT_FROZEN: permanent(403, 'Generation is disabled on this account. Contact support; if `until` is set it lifts then.'),
  ACCOUNT_RESTRICTED: permanent(403, 'The wallet is restricted. Contact support.'),
  CONTENT_POLICY_VIOLATION: permanent(400, 'Change the prompt or inputs; resending as is gives the same result.'),
  ENHANCE_NOT_SUPPORTED: permanent(400, 'Remove `enhance`, or use a model whose enhance_supported is true.'),
  OPTION_NOT_AVAILABLE: permanent(400, 'Pick a value that this model offers for the mode and settings sent (see GET /api/v1/models).'),
  NOT_FOUND: permanent(404, 'Check the id: it must be a generation_id returned to this account.'),
  UNKNOWN_MODEL: permanent(422, 'Use a slug from GET /api/v1/models.'),
  INVALID_BODY: permanent(422, 'Fix the field named in details.field, then resend.'),
  INVALID_PARAMS: permanent(422, 'Fix the field named in details.field, then resend.'),
  MISSING_PROMPT: permanent(422, 'Send a non-empty `prompt`.'),
  MODEL_NOT_API_SUPPORTED: permanent(422, 'Use this model from the web studio; the API cannot shape its inputs.'),
  INPUT_VIDEO_NOT_SUPPORTED: permanent(
    422,
    'Remove `input_video`; this model bills by the exact clip length and is studio-only for that mode.',
  ),
  INVALID_NUMBER_RESULTS: permanent(422, "Send number_results within the model's range (see GET /api/v1/models)."),
  MODEL_CONTRACT_VIOLATION: permanent(422, "Send the inputs this model requires (see the model's modes and example_request)."),
  IDEMPOTENCY_KEY_REUSED: permanent(422, 'Use a new Idempotency-Key for a different body.'),
  IDEMPOTENT_REQUEST_IN_FLIGHT: retried(409, 'Wait 3 seconds (Retry-After) and resend with the same key.'),
  RATE_LIMIT: retried(429, 'Wait Retry-After seconds, then resend.'),
  CONCURRENCY_LIMIT: retried(429, 'Wait for an in-flight generation to finish, then resend.'),
  INTERNAL_ERROR: retried(500, 'Retry with backoff starting at 1 s, doubling, capped at 30 s.'),
  SAFETY_CHECK_UNAVAILABLE: retried(503, 'Nothing was charged. Retry in a few minutes.'),
  PROVIDER_DOWN: retried(503, 'Retry after 60 s.'),

  // HTTP-level answers of any server in the project (the emulator, the app routes).
  METHOD_NOT_ALLOWED: permanent(405, 'Use the method listed in the Allow header.'),
  REQUEST_TIMEOUT: retried(408, 'Send the whole request (headers and body) promptly.'),
  /** The app's server holds as many open event streams as it allows (`stream.maxStreams`). */
  TOO_MANY_STREAMS: retried(503, 'Retry after Retry-After seconds, or poll the generation meanwhile.'),
  BAD_REQUEST: permanent(400, 'Send a well-formed HTTP/1.1 request.'),
  HEADERS_TOO_LARGE: permanent(431, 'Send smaller request headers.'),
  UNSUPPORTED_MEDIA_TYPE: permanent(415, 'Send the body as JSON with Content-Type: application/json.'),
  /** Signed output links (spec: Output links): a bad or expired signature. */
  LINK_INVALID: permanent(403, 'Fetch a fresh link from GET /api/v1/generations/{id}.'),
  LINK_EXPIRED: permanent(410, 'Fetch a fresh link from GET /api/v1/generations/{id}.'),
  /** The emulator's test controls answer only the local machine. */
  CONTROL_FORBIDDEN: permanent(
    403,
    'Call the test controls from the same machine (Host 127.0.0.1, localhost or [::1]), not from a web page.',
  ),

  // The SDK's own codes for failures that never reached the service (client side).
  PARAMS_INVALID: permanent(422, 'Fix the params named in issues, then resend.'),
  CONNECTION_ERROR: retried(502, 'The service could not be reached; retry later.'),
  TIMEOUT: retried(504, 'The service did not answer in time; retry later.'),
  ABORTED: permanent(503, 'The request was cancelled before it finished.'),
  CONFIGURATION_ERROR: permanent(500, 'Retry later; the server log has the details.'),
  UNEXPECTED: permanent(500, 'Retry later; the server log has the details.'),
  /** A 2xx whose body is unusable: the service may have accepted (and billed) it, so a resend with the same key is safe. */
  INVALID_RESPONSE: retried(502, "The service's answer was unusable; resend with the same Idempotency-Key (is baseUrl right?)."),
  /** The client-side gate found no submit slot in time (`Gate`'s `maxWaitMs`). */
  GATE_TIMEOUT: retried(503, 'A slot frees when generations.wait(id) or run() sees it end, or on gate.settle(id).'),
  /** An output over `maxOutputBytes`, not kept: a retry as is would be refused again. */
  OUTPUT_TOO_LARGE: permanent(500, 'Raise maxOutputBytes if outputs are expected this large.'),
  /** A per-user route asked with no user named (`identify` gave none, and the app did not set `allowAnonymous`). */
  USER_UNKNOWN: permanent(401, 'Reload the page to start a session. (The app: identify names no user for this request.)'),
  /** An upload whose bytes are none of the formats the service reads (`ACCEPTED_FORMATS`), whatever its header says. */
  MEDIA_NOT_ACCEPTED: permanent(415, 'Upload PNG, JPEG, WebP, MP4, WebM, WAV or MP3.'),
  /** An upload over its kind's limit (`INPUT_MAX_BYTES`), or longer than its own Content-Length. */
  UPLOAD_TOO_LARGE: permanent(413, 'Upload at most 20 MB of image, 200 MB of video, 50 MB of audio.'),
  /** A file path in an input field (`nodeMediaInputs`, the CLI's `--input-image`) that is no readable regular file. */
  INPUT_FILE_UNREADABLE: permanent(400, 'Give the path of a readable media file, or an https URL.'),
  /** `@mediagen/mcp`: a generate past the session's spend cap; nothing was sent. */
  SPEND_CAP_EXCEEDED: permanent(402, 'Raise the cap (spendCapCredits) or start a new session.'),
  /** A user over the credits of their period (the handler's `budget`): nothing was sent. */
  USER_BUDGET_EXCEEDED: permanent(402, "Pick a cheaper request, or wait until resets_at, when this user's budget resets."),
  /** A user over their submits per minute (the handler's `budget`): nothing was sent. */
  USER_RATE_LIMIT: retried(429, 'Wait Retry-After seconds, then resend.'),
  /** A user with as many generations in flight as their budget allows: nothing was sent. */
  USER_CONCURRENCY_LIMIT: retried(429, "Wait for one of this user's generations to finish, then resend."),
  /** An app hook refused the submit (`SubmitRefusedError`); its own status and hint apply. */
  SUBMIT_REFUSED: permanent(403, 'Change the request; it was refused by this app.'),

  // The stores' and tools' own failures (@mediagen/redis, @mediagen/s3, the CLI, the React hooks).
  REDIS_UNAVAILABLE: retried(503, 'Check that Redis is reachable; retry once it is.'),
  REDIS_DATA_LOST: retried(500, 'Redis lost data the store relied on (an eviction or a flush); retry.'),
  REDIS_MESSAGE_INVALID: permanent(500, 'A message on the events channel was not one this store wrote; it was ignored.'),
  /** The browser got no HTTP answer at all (the hooks' own error, status 0 in the browser). */
  NETWORK_ERROR: retried(502, 'Check the connection, then try again.'),
  USAGE: permanent(400, 'Run mediagen --help for the commands and their options.'),
  NO_API_KEY: permanent(401, 'Set MEDIAGEN_API_KEY or pass --api-key.'),
  OUTPUT_WRITE_FAILED: permanent(500, 'Check the output path: it must be writable.'),
  /** A media store (`@mediagen/s3`'s bucket) refused or failed an operation; `retryable` on the error says whether a retry may help. */
  STORAGE_ERROR: retried(502, "The app's media storage failed; retry later."),

  // The webhook receiver's refusals: 4xx ends the service's retry chain, 5xx makes it retry.
  WEBHOOK_CONTENT_TYPE: permanent(415, 'Send the body as application/json.'),
  WEBHOOK_BODY_TOO_LARGE: permanent(413, 'Raise the receiver body limit if this is a real delivery.'),
  WEBHOOK_BODY_TIMEOUT: retried(503, RESEND),
  WEBHOOK_BODY_UNREADABLE: retried(500, RESEND),
  WEBHOOK_HANDLER_FAILED: retried(500, RESEND),
  WEBHOOK_HANDLER_TIMEOUT: retried(503, RESEND),
  WEBHOOK_IN_PROGRESS: retried(503, RESEND),
  WEBHOOK_DEDUPE_FAILED: retried(500, 'Check the store; the service retries the delivery.'),
  WEBHOOK_SIGNATURE_MISSING: permanent(401, 'Check the signing secret and the raw body.'),
  WEBHOOK_SIGNATURE_INVALID: permanent(401, 'Check the signing secret and the raw body.'),
  WEBHOOK_PAYLOAD_INVALID: permanent(400, 'Check the signing secret and the raw body.'),
  WEBHOOK_EVENT_MISMATCH: permanent(400, 'Check the signing secret and the raw body.'),
  /** The receiver's own fault: a 5xx keeps the delivery alive until it is fixed. */
  WEBHOOK_SECRET_MISSING: retried(500, 'Set the webhook signing secret (MEDIAGEN_WEBHOOK_SECRET); the service retries the delivery.'),
  WEBHOOK_CRYPTO_UNAVAILABLE: retried(500, 'Run the receiver where Web Crypto is available; the service retries the delivery.'),
  WEBHOOK_BODY_PARSED: retried(
    500,
    'Mount the webhook route before app.use(express.json()) or any other JSON parser, or give it the raw body (express.raw(), rawBody: true in NestJS).',
  ),
  /** The receiver was handed no body it can read (not a string or bytes): its own fault. */
  WEBHOOK_BODY_MISSING: retried(500, 'Give the receiver the raw body (a string or bytes); the service retries the delivery.'),
  /** Verification failed for a reason that is no SDK error: the receiver's fault, so the delivery is retried. */
  WEBHOOK_ERROR: retried(500, RESEND),
} as const satisfies Record<string, ErrorCodeInfo>;

export type ErrorCode = keyof typeof ERROR_CODES;

/**
 * A second status the contract documents for a code, beside its row's own: "Also as 413 with
 * this code when an uploaded file exceeds the size limit" (spec: Errors, `INVALID_BODY`). A body
 * over the limit is `413 INVALID_BODY`; a malformed one is the row's `422 INVALID_BODY`.
 */
export const ALSO_ANSWERED = { INVALID_BODY: 413 } as const satisfies Partial<Record<ErrorCode, number>>;

/** A code with the second status the contract documents for it (`ALSO_ANSWERED`), e.g. `['INVALID_BODY', 413]`. */
export type DocumentedStatus = { [C in keyof typeof ALSO_ANSWERED]: readonly [C, (typeof ALSO_ANSWERED)[C]] }[keyof typeof ALSO_ANSWERED];

/** Whether `status` is one the contract answers `code` with: its row's, or a documented second one. */
export function isDocumentedStatus(code: string, status: number): boolean {
  return errorCodeInfo(code)?.status === status || (ALSO_ANSWERED as Record<string, number>)[code] === status;
}

/** The table's row for `code`, or undefined for a code it does not know (a newer service's). */
export function errorCodeInfo(code: string): ErrorCodeInfo | undefined {
  return Object.hasOwn(ERROR_CODES, code) ? ERROR_CODES[code as ErrorCode] : undefined;
}
