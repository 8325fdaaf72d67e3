/**
 * Storage the app owns for copies of outputs (`persistOutputs`), so results outlive the service's
 * 3-day links and its retention. Shaped for a key/value object store: a filesystem directory
 * (`FileOutputSink` in `@mediagen/sqlite`), an S3-compatible bucket (a streamed upload, then the
 * object's URL), Vercel Blob (`put(name, body)` answers `{ url }`, and takes a stream).
 */
export interface OutputSink {
  /**
   * Stores one output under `name` (`<generation_id>/<index>-<filename>`, unique per output, so
   * a second put after a crash overwrites the same object) and returns the URL the app serves it at.
   *
   * `body` is the download itself, streamed: read it as you write (never whole into memory; an
   * output may be hundreds of MB). It may fail part-way, with `OutputTooLargeError` past the
   * ledger's `maxOutputBytes` or a `ConnectionError`: then reject, and keep nothing under `name`
   * (write to a temporary name and rename, or abort the multipart upload), so that no
   * half-written output is ever served.
   */
  put(name: string, body: ReadableStream<Uint8Array>, info: OutputInfo): Promise<string>;
}

export interface OutputInfo {
  generationId: string;
  index: number;
  /** The output's `Content-Type` as the service sent it, when it did. */
  contentType: string | null;
}
