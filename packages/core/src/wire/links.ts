/**
 * The signed output link's path (spec: Output links), stated once:
 * `/api/v1/output/<generation_id>/<expiry_epoch_seconds>/<signature>/<index>/<filename>`.
 * The emulator builds and routes links with these; core's `parseOutputLink` reads them.
 */
// A literal, like the pattern below (test/wire-links.test.ts holds both to API_PREFIX): built
// from API_PREFIX, a bundler keeps it in every app that imports the client, used or not.
export const OUTPUT_LINK_PREFIX = '/api/v1/output/';

export interface OutputLinkParts {
  generationId: string;
  /** Epoch seconds. */
  expiry: number;
  signature: string;
  index: number;
  filename: string;
}

/**
 * A link path, anchored at its end so any host or path prefix may come before it. Link numbers
 * in canonical form only: `0`, or at most 15 digits without a leading zero (a safe integer);
 * `05`, `5.0`, `-0`, `+5`, `5e0` name no link. Written out (not built from `API_PREFIX`) so that
 * it tree-shakes; `wire-links.test.ts` checks it against `OUTPUT_LINK_PREFIX`.
 */
export const OUTPUT_LINK_PATTERN = /\/api\/v1\/output\/([^/]+)\/(0|[1-9]\d{0,14})\/([^/]+)\/(0|[1-9]\d{0,14})\/([^/]+)$/;

/** Percent-encodes each text segment, so any id or filename stays one path segment. */
export function outputLinkPath(parts: OutputLinkParts): string {
  const { generationId, expiry, signature, index, filename } = parts;
  return `${OUTPUT_LINK_PREFIX}${encodeURIComponent(generationId)}/${expiry}/${encodeURIComponent(signature)}/${index}/${encodeURIComponent(filename)}`;
}

/**
 * A link's parts from a URL path that ends in an output link; undefined unless it matches
 * `OUTPUT_LINK_PATTERN` and its percent-encoding is valid (`%ZZ` names no link).
 */
export function parseOutputLinkPath(pathname: string): OutputLinkParts | undefined {
  const m = OUTPUT_LINK_PATTERN.exec(pathname);
  try {
    return m
      ? {
          generationId: decodeURIComponent(m[1] as string),
          expiry: Number(m[2]),
          signature: decodeURIComponent(m[3] as string),
          index: Number(m[4]),
          filename: decodeURIComponent(m[5] as string),
        }
      : undefined;
  } catch {
    // Bad percent-encoding (a URIError): not a link.
    return undefined;
  }
}

/** The five segments after `/api/v1/output/` (a router's view of a link path), read the same way. */
export function parseOutputLinkSegments(segments: readonly string[]): OutputLinkParts | undefined {
  return segments.length === 5 ? parseOutputLinkPath(`${OUTPUT_LINK_PREFIX}${segments.join('/')}`) : undefined;
}
