/**
 * Where a person's own media (a generation's inputs) is kept by the app, behind links the
 * service can fetch (the contract takes inputs only as public https URLs). One interface for
 * every backend: the filesystem (the app serves the bytes itself under signed links) and
 * S3-compatible buckets (`@mediagen/s3`: presigned links, and uploads straight from the browser).
 *
 * Keys are chosen by the caller (core names inputs by the sha256 of their bytes, so one file is
 * one object and one link, whatever retries happen); a store never rewrites them.
 */
export interface MediaStore {
  /**
   * Stores `body` under `key`, streamed (read as written, never whole into memory). It may fail
   * part-way (a body that breaks off, one over a limit): then reject, and keep nothing under
   * `key` (a temporary name renamed into place, an aborted multipart upload), so that no
   * half-written object is ever served. Putting a key that exists replaces it.
   */
  put(key: string, body: ReadableStream<Uint8Array>, info: MediaInfo): Promise<void>;
  /**
   * Moves `from` to `to` (a rename on a filesystem, a server-side copy and a delete in a bucket):
   * an upload is written under a temporary key, then moved to the key its bytes' digest names.
   * Rejects when `from` is not there.
   */
  move(from: string, to: string): Promise<void>;
  /**
   * A link anyone holding it may GET `key` with until `expiresAt`: what the service fetches an
   * input from. The same key and `expiresAt` always give the same link, whenever it is asked: a
   * submit's recorded body holds the link, and a resend must send that body unchanged. It serves
   * the stored `Content-Type`, with `nosniff` and as an attachment where the backend lets the
   * link say so. An `expiresAt` further ahead than the backend allows (S3: 7 days) is a
   * `ConfigurationError`.
   */
  link(key: string, options: { expiresAt: Date }): Promise<string>;
  /** Removes `key`; a key that is not there is no error. */
  delete(key: string): Promise<void>;
  /**
   * Where a browser may upload the bytes itself, so they never pass through the app (a presigned
   * S3 `PUT` or `POST`), bounded to `contentType` and at most `maxBytes`. Absent: uploads go
   * through the app's upload route.
   */
  directUpload?(key: string, options: { expiresInMs: number; contentType: string; maxBytes: number }): Promise<DirectUpload>;
  /**
   * Answers a `GET` of one of this store's links, for a store whose links point at the app's own
   * handler (the filesystem store): `GET {basePath}/uploads/:key` hands it the request. Checks the
   * link's signature and expiry, and serves the bytes with their type, `nosniff` and as an attachment.
   */
  respond?(key: string, request: Request): Promise<Response>;
}

export interface MediaInfo {
  /** The media type read from the bytes (never the sender's header). */
  contentType: string;
  /** The exact length, when known before the body is read. */
  size?: number | undefined;
}

/** A browser's upload straight to storage: send the file with this method, URL, headers (and, for `POST`, form fields first). */
export interface DirectUpload {
  url: string;
  method: 'PUT' | 'POST';
  headers: Record<string, string>;
  /** A `POST` policy upload's form fields, sent before the file field. */
  fields?: Record<string, string> | undefined;
}
