import { type DocumentedStatus, ERROR_CODES, type ErrorCode, errorCodeInfo } from '@mediagen/core/wire';

/**
 * A request-time failure, turned into the spec's error body by the router. Named apart from
 * core's `APIError` (a client-side error the SDK throws): this one is what the emulator answers.
 * It takes the code; the project's one table (`ERROR_CODES`) gives the status, so no throw site
 * can answer a code with another status. The one exception is a second status the contract
 * documents for a code (`ALSO_ANSWERED`: `['INVALID_BODY', 413]` for a body over the limit).
 */
export class EmulatorHttpError extends Error {
  readonly status: number;
  /** A code of the project's one table: a typo, or a code the table lacks, fails to compile. */
  readonly code: ErrorCode;

  constructor(
    code: ErrorCode | DocumentedStatus,
    message: string,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
    if (typeof code === 'string') {
      this.code = code;
      this.status = ERROR_CODES[code].status;
    } else {
      [this.code, this.status] = code;
    }
  }
}

/**
 * The `next` field: what a client should do about each code, from the project's one error-code
 * table (`@mediagen/core/wire`), worded after the spec's client retry guidance.
 */
export const nextFor = (code: string): string => errorCodeInfo(code)?.next ?? 'See the API reference for this code.';

export const DEFAULT_MESSAGES: Record<string, string> = {
  INTERNAL_ERROR: 'Internal error before billing or enqueue.',
  SAFETY_CHECK_UNAVAILABLE: 'The image-safety checker is unavailable.',
  PROVIDER_DOWN: 'The provider is down.',
  RATE_LIMIT: 'Rate limit exceeded.',
};
