import { MediaGenError } from '@mediagen/core';

/**
 * The bucket refused an operation, answered something unusable, or could not be reached. Its
 * message names the operation, the key and S3's own error code and message (bounded), never the
 * secret access key, the session token or a signed URL.
 */
export class S3StoreError extends MediaGenError {
  override name = 'S3StoreError';
  /** The bucket's HTTP status, when it answered (`undefined`: no answer, a network failure). */
  readonly s3Status: number | undefined;
  /** S3's error code (`AccessDenied`, `NoSuchBucket`, `SignatureDoesNotMatch`, …), when it sent one. */
  readonly s3Code: string | undefined;

  constructor(message: string, init: { s3Status?: number | undefined; s3Code?: string | undefined; retryable: boolean; cause?: unknown }) {
    super(message, {
      code: 'STORAGE_ERROR',
      retryable: init.retryable,
      next: init.retryable ? NEXT_RETRY : NEXT_SETTINGS,
      cause: init.cause,
    });
    this.s3Status = init.s3Status;
    this.s3Code = init.s3Code;
  }
}

const NEXT_RETRY = 'The bucket failed or could not be reached; the operation can be retried.';
const NEXT_SETTINGS = "Check the store's bucket, endpoint, region and credentials, and the key's permissions.";
