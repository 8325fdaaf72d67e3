import {
  AuthenticationError,
  ConfigurationError,
  GenerationFailedError,
  InsufficientCreditsError,
  InvalidRequestError,
  isMediaGenError,
  NotFoundError,
  ParamsValidationError,
  PermissionDeniedError,
} from '@mediagen/core';
import { MissingKeyError, OutputWriteError, UnknownModelError, UsageError } from './errors';

/** The process exit code of each kind of outcome; documented in the README (keep in step). */
export const EXIT = {
  ok: 0,
  /** `types --check`: the declaration file no longer matches the live list. */
  outdated: 1,
  usage: 2,
  /** 401, 403, or no API key. */
  auth: 3,
  /** 402 INSUFFICIENT_CREDITS. */
  credits: 4,
  /** Params the model refuses: client-side validation, 400 and 422. */
  params: 5,
  /** 5xx, 409, 429, no connection, timeouts: the service or the network. */
  service: 6,
  /** The generation ended `failed`. */
  failed: 7,
  /** 404: no such generation on this account. */
  notFound: 8,
  /** The outputs could not be written (`--out`). */
  output: 9,
  /** Ctrl-C while a submit waited for a slot: nothing was created, nothing billed. */
  stoppedUnsent: 10,
  /** A bug in the CLI itself. */
  internal: 70,
  /** Ctrl-C. Nothing was cancelled: the service keeps rendering. */
  interrupted: 130,
} as const;

export function exitCodeFor(error: unknown): number {
  if (error instanceof UsageError) return EXIT.usage;
  if (error instanceof UnknownModelError) return EXIT.params;
  if (error instanceof OutputWriteError) return EXIT.output;
  if (error instanceof MissingKeyError) return EXIT.auth;
  if (error instanceof ConfigurationError) return EXIT.usage;
  if (error instanceof AuthenticationError || error instanceof PermissionDeniedError) return EXIT.auth;
  if (error instanceof InsufficientCreditsError) return EXIT.credits;
  if (error instanceof ParamsValidationError || error instanceof InvalidRequestError) return EXIT.params;
  if (error instanceof NotFoundError) return EXIT.notFound;
  if (error instanceof GenerationFailedError) return EXIT.failed;
  // An input file that cannot be read is the command line's; one the service would not take, the params'.
  if (isMediaGenError(error) && error.code === 'INPUT_FILE_UNREADABLE') return EXIT.usage;
  if (isMediaGenError(error) && (error.code === 'MEDIA_NOT_ACCEPTED' || error.code === 'UPLOAD_TOO_LARGE')) return EXIT.params;
  if (isMediaGenError(error)) return error.code === 'ABORTED' ? EXIT.interrupted : EXIT.service;
  return EXIT.internal;
}
