import { ConfigurationError } from '../errors';
import { oneLine } from '../util/one-line';
import { parseUrl } from '../util/parse-url';
import { parseOutputLinkPath } from '../wire/links';

export interface OutputLink {
  generationId: string;
  /** When the signature stops being accepted (3 days after the response that carried it). */
  expiresAt: Date;
  index: number;
  filename: string;
}

/**
 * Reads a signed output link, `/api/v1/output/<generation_id>/<expiry_epoch_seconds>/
 * <signature>/<index>/<filename>` (the shape is `@mediagen/core/wire`'s), on any host or path
 * prefix. Throws `ConfigurationError` for anything else: a non-canonical number (`05`, `0.0`,
 * `-0`), bad percent-encoding (`%ZZ`), or not a URL.
 */
export function parseOutputLink(url: string | URL): OutputLink {
  // Not a URL at all (or a value that is no string): no path, no parts, reported below.
  const parts = parseOutputLinkPath(parseUrl(url, 'http://base.invalid')?.pathname ?? '');
  if (!parts) throw new ConfigurationError(oneLine(`Not a signed output link: ${String(url).slice(0, 200)}`));
  const { generationId, expiry, index, filename } = parts;
  return { generationId, expiresAt: new Date(expiry * 1_000), index, filename };
}

/** True when the link has expired, or will within `marginMs` of `now`. */
export function isExpired(url: string | URL, now: Date | number = Date.now(), marginMs = 0): boolean {
  return parseOutputLink(url).expiresAt.getTime() - marginMs <= Number(now);
}
