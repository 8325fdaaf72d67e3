import { ConfigurationError } from '../errors';

export interface OutputLink {
  generationId: string;
  /** When the signature stops being accepted (3 days after the response that carried it). */
  expiresAt: Date;
  index: number;
  filename: string;
}

const PATH = /\/api\/v1\/output\/([^/]+)\/(\d+)\/[^/]+\/(\d+)\/([^/]+)$/;

/**
 * Reads a signed output link, `/api/v1/output/<generation_id>/<expiry_epoch_seconds>/
 * <signature>/<index>/<filename>`, on any host or path prefix. Throws `ConfigurationError`
 * for anything else.
 */
export function parseOutputLink(url: string | URL): OutputLink {
  let match: RegExpExecArray | null = null;
  try {
    match = PATH.exec(new URL(url, 'http://base.invalid').pathname);
  } catch {
    // Not a URL at all: reported below.
  }
  if (!match) throw new ConfigurationError(`Not a signed output link: ${String(url).slice(0, 200)}`);
  return {
    generationId: decodeURIComponent(match[1]!),
    expiresAt: new Date(Number(match[2]) * 1_000),
    index: Number(match[3]),
    filename: decodeURIComponent(match[4]!),
  };
}

/** True when the link has expired, or will within `marginMs` of `now`. */
export function isExpired(url: string | URL, now: Date | number = Date.now(), marginMs = 0): boolean {
  return parseOutputLink(url).expiresAt.getTime() - marginMs <= Number(now);
}
