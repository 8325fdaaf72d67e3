/**
 * Storage the app owns for copies of outputs (`persistOutputs`), so results outlive the service's
 * 3-day links and its retention. Shaped for a key/value object store: a filesystem directory
 * (`FileOutputSink` in `@mediagen/sqlite`), an S3-compatible bucket (`PutObject`, then the
 * object's URL), Vercel Blob (`put(name, body)` answers `{ url }`).
 */
export interface OutputSink {
  /**
   * Stores one output under `name` (`<generation_id>/<index>-<filename>`, unique per output, so
   * a second put after a crash overwrites the same object) and returns the URL the app serves it at.
   */
  put(name: string, body: Uint8Array, info: OutputInfo): Promise<string>;
}

export interface OutputInfo {
  generationId: string;
  index: number;
  /** The output's `Content-Type` as the service sent it, when it did. */
  contentType: string | null;
}
