// The docs' own words about each error code: which section of the page it goes in, when it
// happens, and for the SDK's codes the class that carries it. The facts (status, retryable,
// next) come from `ERROR_CODES` in `@mediagen/core/wire`. Until core exports that table, the
// statuses and hints written here (the second column of SERVICE_CODES, the fourth of SDK_CODES)
// stand in for it; once it does, they are unused and can go.

/** [code, HTTP status (interim), when]: the service's request-time codes. */
export const SERVICE_CODES = [
  ['AUTH_MISSING', 401, 'No `Authorization` header, or not `Bearer <key>`.'],
  ['KEY_INVALID', 401, 'The token lacks the key prefix or matches no key.'],
  ['KEY_REVOKED', 401, 'The key was revoked.'],
  ['UNAUTHORIZED', 401, 'Earlier form of `AUTH_MISSING`; the SDK reports it as `AUTH_MISSING`.'],
  ['INSUFFICIENT_CREDITS', 402, 'The balance cannot cover the estimated cost (`balance`, `needed`).'],
  ['TIER_LOCKED', 403, 'The account is Free or Standard.'],
  ['MODEL_NOT_ALLOWED', 403, 'The model is not enabled for the account.'],
  ['API_DISABLED', 403, 'The API is switched off platform-wide.'],
  ['ACCOUNT_BANNED', 403, 'The account is banned (`until` when temporary).'],
  ['ACCOUNT_FROZEN', 403, 'The account is frozen; generation is disabled (`until` when temporary).'],
  ['ACCOUNT_RESTRICTED', 403, 'A narrower wallet-level restriction.'],
  ['NOT_YOURS', 403, 'Earlier form of `NOT_FOUND` for another account’s id; the SDK reports it as `NOT_FOUND`.'],
  ['CONTENT_POLICY_VIOLATION', 400, 'The prompt or an input image was flagged before dispatch. Nothing is charged.'],
  ['ENHANCE_NOT_SUPPORTED', 400, '`enhance: true` on a model without `enhance_supported`.'],
  ['OPTION_NOT_AVAILABLE', 400, 'A value the model has, but not for the mode or settings sent.'],
  ['NOT_FOUND', 404, 'The generation id is unknown or another account’s (indistinguishable).'],
  ['UNKNOWN_MODEL', 422, 'The slug matches no model.'],
  [
    'INVALID_BODY',
    422,
    'Catch-all: unparseable JSON, a value off the model’s list, out of range… (`details.field`). Also 413 for an upload over the size limit.',
  ],
  ['INVALID_PARAMS', 422, 'Earlier form of `INVALID_BODY` (`field`, `reason`); the SDK reports it as `INVALID_BODY`.'],
  ['MISSING_PROMPT', 422, 'The model needs a non-empty prompt.'],
  ['MODEL_NOT_API_SUPPORTED', 422, 'The model needs several role-tagged inputs the API cannot shape.'],
  ['INPUT_VIDEO_NOT_SUPPORTED', 422, '`input_video` sent to a model that bills by the exact clip length.'],
  ['INVALID_NUMBER_RESULTS', 422, '`number_results` outside the model’s range.'],
  ['MODEL_CONTRACT_VIOLATION', 422, 'A per-model rule failed (a missing required input, an invalid combination).'],
  ['IDEMPOTENCY_KEY_REUSED', 422, 'The same `Idempotency-Key` with a different body.'],
  ['IDEMPOTENT_REQUEST_IN_FLIGHT', 409, 'The same key while the first request is still being enqueued.'],
  ['RATE_LIMIT', 429, 'The per-minute submit limit (`Retry-After` in seconds).'],
  ['CONCURRENCY_LIMIT', 429, 'Too many generations in flight (`in_flight`, `max_concurrent`).'],
  ['INTERNAL_ERROR', 500, 'A service-side failure before billing or enqueue.'],
  ['SAFETY_CHECK_UNAVAILABLE', 503, 'The image-safety checker is down. Nothing is charged.'],
  ['PROVIDER_DOWN', 503, 'A provider outage.'],
];

/** [code, class, when, next (interim)]: codes the SDK makes itself, with no request answered. */
export const SDK_CODES = [
  [
    'CONNECTION_ERROR',
    'ConnectionError',
    'No response: DNS, TCP, TLS or a dropped connection.',
    'Retried with backoff; after the last attempt, resend a submit with `error.idempotencyKey`.',
  ],
  [
    'TIMEOUT',
    'TimeoutError',
    'An attempt ran past `timeoutMs`, or `wait()` past its deadline.',
    'Retried like a dropped connection; for `wait()`, call it again: the generation goes on.',
  ],
  ['ABORTED', 'AbortError', 'Your `AbortSignal` fired; nothing more is sent for the call.', 'Nothing to do: you cancelled it.'],
  [
    'CONFIGURATION_ERROR',
    'ConfigurationError',
    'A bad client option or argument, found before anything was sent.',
    'Fix the option named in the message.',
  ],
  [
    'PARAMS_INVALID',
    'ParamsValidationError',
    'The model’s own schema refuses the params; nothing was sent (`issues`).',
    'Fix each of `error.issues`; `client.models.list()` says what each model accepts.',
  ],
  ['INVALID_RESPONSE', 'APIError', 'A 2xx whose body is not the contract’s (a proxy, a wrong `baseUrl`).', 'Check `baseUrl`.'],
  [
    'OUTPUT_TOO_LARGE',
    'OutputTooLargeError',
    'A persisted output (`persistOutputs`) is larger than `maxOutputBytes`; its download was aborted and nothing kept.',
    'Reported once to `onError`; the generation is handed over with the service’s links. Raise `maxOutputBytes` if outputs are this large.',
  ],
  [
    'REDIS_UNAVAILABLE',
    'RedisStoreError',
    'A `@mediagen/redis` store could not reach Redis.',
    'Check that Redis is reachable; the call may be retried.',
  ],
  [
    'REDIS_DATA_LOST',
    'RedisStoreError',
    'Redis lost a key a store relied on (an eviction or a flush).',
    'Run Redis with `maxmemory-policy noeviction` for these keys; the call may be retried.',
  ],
  [
    'REDIS_MESSAGE_INVALID',
    'RedisStoreError',
    'A message on the events channel was not one this store wrote (reported, ignored).',
    'Give the store a prefix no other writer uses.',
  ],
  [
    'STORAGE_ERROR',
    'S3StoreError',
    'A `@mediagen/s3` bucket refused or failed an operation (a put, copy, delete), or could not be reached; `s3Status` and `s3Code` say what S3 answered, and a body that broke off during a `put` is this code too.',
    '`error.retryable` says whether a retry may help (5xx, `SlowDown`, no answer); otherwise check the bucket, endpoint, region, credentials and key permissions.',
  ],
  [
    'NETWORK_ERROR',
    'GenerationRequestError',
    'The React hooks got no answer from your app’s routes (status 0).',
    'Check the connection; the same submit is never billed twice when sent again.',
  ],
  ['USAGE', 'UsageError', 'The `mediagen` CLI was called with a bad command, option or value.', 'Run `mediagen --help`.'],
  ['NO_API_KEY', 'MissingKeyError', 'The `mediagen` CLI found no API key.', 'Set `MEDIAGEN_API_KEY` or pass `--api-key`.'],
  [
    'OUTPUT_WRITE_FAILED',
    'OutputWriteError',
    'The `mediagen` CLI could not write a downloaded output.',
    'Check the output folder (`--out`): it must be writable.',
  ],
  [
    'GATE_TIMEOUT',
    'MediaGenError',
    'The account gate found no submit slot in its `maxWaitMs`.',
    'A slot frees when `wait()`/`run()` sees a generation end, or on `gate.settle(id)`.',
  ],
  [
    'UNEXPECTED',
    'MediaGenError',
    'A non-SDK failure inside a submit (your hook, a store), wrapped.',
    'See `error.cause`; the message is never sent to a browser.',
  ],
  [
    'USER_UNKNOWN',
    'APIError',
    'A submit, list, read or stream of your routes with no user named: `identify` returned none (no session cookie?) and `allowAnonymous` is not set.',
    'Set the user cookie before the page calls the routes (Next: `proxy.ts`); `GET /health` lists it while `identify` is missing.',
  ],
  [
    'MEDIA_NOT_ACCEPTED',
    'InvalidRequestError',
    'An upload to `POST <basePath>/uploads` whose bytes are none of the formats the service reads (PNG, JPEG, WebP; MP4, WebM; WAV, MP3), or that also reads as HTML or SVG. The kind is read from the bytes, never from `Content-Type` or the file name.',
    'Convert the file to one of those formats, then upload it again.',
  ],
  [
    'UPLOAD_TOO_LARGE',
    'InvalidRequestError',
    'An upload over its kind’s limit (images 20 MB, video 200 MB, audio 50 MB), or longer than its own `Content-Length`: answered 413 as soon as the limit is passed, the rest unread.',
    'Upload a smaller file (shorter, lower resolution), or a lighter format.',
  ],
  [
    'INPUT_FILE_UNREADABLE',
    'MediaGenError',
    'A file path given as an input (`nodeMediaInputs`, the CLI’s `--input-image ./photo.jpg`) that is missing, unreadable, a folder or a device: nothing was stored or sent.',
    'Give the path of a PNG, JPEG, WebP, MP4, WebM, WAV or MP3 file, or an https URL.',
  ],
  [
    'SPEND_CAP_EXCEEDED',
    'SpendCapExceededError',
    '`@mediagen/mcp`: a `generate` whose exact estimate would take the session past its spend cap; nothing was sent or billed. `needed` and `remaining` say by how much.',
    'Raise `spendCapCredits` (`MEDIAGEN_MCP_SPEND_CAP`) or start a new session.',
  ],
  [
    'USER_BUDGET_EXCEEDED',
    'InsufficientCreditsError',
    'A submit through your routes that would take the user past their credits for the period (the handler’s `budget` option), priced exactly first. Nothing was sent. The body says `needed`, `remaining_credits` and `resets_at`.',
    'Pick a cheaper request, or wait until `resets_at`; raise the user’s limit in your `budget.limits`.',
  ],
  [
    'USER_RATE_LIMIT',
    'RateLimitError',
    'A submit over the user’s `submitsPerMinute` (the handler’s `budget` option). Nothing was sent; `Retry-After` says when the minute frees a submit.',
    'Wait `Retry-After` seconds, then resend with the same `Idempotency-Key`.',
  ],
  [
    'USER_CONCURRENCY_LIMIT',
    'RateLimitError',
    'A submit while the user has `inFlight` generations not yet ended (the handler’s `budget` option). Nothing was sent; `in_flight` and `max_concurrent` say how many.',
    'Wait for one of the user’s generations to end, then resend.',
  ],
  [
    'SUBMIT_REFUSED',
    'SubmitRefusedError',
    'Your `beforeSubmit` refused a submit (default 403).',
    'Your own rule: the browser sees your message and `next`.',
  ],
  [
    'WEBHOOK_SIGNATURE_MISSING',
    'WebhookVerificationError',
    'A delivery without the signature header (the receiver answers 401).',
    'Not a delivery from the service.',
  ],
  [
    'WEBHOOK_SIGNATURE_INVALID',
    'WebhookVerificationError',
    'The signature matches none of the secrets (401).',
    'Check the secret; during a rotation pass both secrets.',
  ],
  [
    'WEBHOOK_SECRET_MISSING',
    'WebhookVerificationError',
    'No webhook secret configured (500, so the service retries).',
    'Set `MEDIAGEN_WEBHOOK_SECRET` or pass `secrets`.',
  ],
  [
    'WEBHOOK_PAYLOAD_INVALID',
    'WebhookVerificationError',
    'Authentic bytes that are not an event (400).',
    'Nothing: a retry would send the same bytes.',
  ],
  [
    'WEBHOOK_EVENT_MISMATCH',
    'WebhookVerificationError',
    'The event header contradicts the signed body (400).',
    'Nothing: the signed body is what counts.',
  ],
  [
    'WEBHOOK_EVENT_UNSUPPORTED',
    'WebhookVerificationError',
    'A genuine event of a type newer than this SDK; the receiver acknowledges it.',
    'Upgrade the SDK to handle it.',
  ],
  [
    'WEBHOOK_BODY_PARSED',
    'WebhookVerificationError',
    'The body was parsed by a JSON middleware before the receiver; its exact bytes are gone.',
    'Mount the receiver before any JSON parser, or give it the raw body.',
  ],
  ['WEBHOOK_BODY_MISSING', 'WebhookVerificationError', 'No raw body reached the receiver.', 'Give the receiver the raw request body.'],
  [
    'WEBHOOK_ERROR',
    'WebhookVerificationError',
    'Verification failed for a reason that is no SDK error (500: the service redelivers).',
    'Check the server log (`onError`); the delivery is retried.',
  ],
  [
    'WEBHOOK_CRYPTO_UNAVAILABLE',
    'WebhookVerificationError',
    'The runtime has no Web Crypto HMAC (500).',
    'Run on Node 20+, Bun, Deno or an edge runtime.',
  ],
];

/** [code, when]: HTTP-level answers of any server in the project (the emulator, your app's routes). */
export const HTTP_CODES = [
  ['METHOD_NOT_ALLOWED', 'A method the route does not take (the `Allow` header lists the ones it does).'],
  ['REQUEST_TIMEOUT', 'The request (headers and body) did not arrive in time.'],
  [
    'TOO_MANY_STREAMS',
    'The handler already holds its cap of open live streams (`stream.maxStreams`); the browser falls back to polling and retries after `Retry-After`.',
  ],
  ['BAD_REQUEST', 'The emulator could not parse the HTTP request itself (a malformed request line or header).'],
  ['HEADERS_TOO_LARGE', 'The request’s headers are over the emulator’s limit.'],
  ['UNSUPPORTED_MEDIA_TYPE', 'A body that is not `application/json` where the emulator reads JSON.'],
  ['LINK_INVALID', 'A signed output link whose signature does not match (altered, or signed for another output).'],
  ['LINK_EXPIRED', 'A signed output link past its 3-day expiry; a status read signs fresh ones (`generations.download` does it for you).'],
  ['CONTROL_FORBIDDEN', 'A call to the emulator’s `/__emulator/` test controls from anything but the local machine (or from a web page).'],
];

/** The webhook receiver's refusals (`webhookRefusal(code)` in `@mediagen/core/server` answers each). */
export const RECEIVER_CODES = [
  'METHOD_NOT_ALLOWED',
  'WEBHOOK_CONTENT_TYPE',
  'WEBHOOK_BODY_TOO_LARGE',
  'WEBHOOK_BODY_TIMEOUT',
  'WEBHOOK_BODY_UNREADABLE',
  'WEBHOOK_HANDLER_FAILED',
  'WEBHOOK_HANDLER_TIMEOUT',
  'WEBHOOK_IN_PROGRESS',
  'WEBHOOK_DEDUPE_FAILED',
];
