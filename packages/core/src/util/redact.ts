/**
 * Secrets never leave the SDK in text (design: conventions). Everything the SDK writes into an
 * error message, a log line or an error's `cause` passes through here first.
 */

const REDACTED = '[redacted]';

/**
 * Shapes that are secrets whoever's they are: a bearer token, an API key (`<prefix>_live_…`,
 * even one split by a stray newline), a webhook secret (`whsec_…`), credentials in a URL.
 * Token runs stop at quotes, backslashes and separators so JSON text stays JSON. The URL
 * scheme and credentials are bounded so that no input makes the scan quadratic (`a.a.a.…`
 * would otherwise rescan to the end from every letter). A prefix with nothing after it is no
 * secret, nor is a placeholder (`Bearer <API_KEY>`): the hints that name them read as written.
 */
const SECRET_SHAPES =
  /(\bbearer\s+)[^\s"'\\,;<][^\s"'\\,;]*|(\b\w*?_live_)[^\s"'\\,;]+|(\bwhsec_)[^\s"'\\,;]+|(\b[a-z][a-z0-9+.-]{0,31}:\/\/)[^\s/?#@"'\\]{1,256}@/gi;

/** Exact secrets shorter than this are not searched for as plain text (a test key `k` would mangle every word). */
const MIN_EXACT_SECRET = 8;

/** `text` with every secret-shaped run replaced by `[redacted]` (what any error message gets). */
export function redactShapes(text: string): string {
  return text.replace(SECRET_SHAPES, (_match, bearer?: string, live?: string, whsec?: string, scheme?: string) =>
    scheme === undefined ? `${bearer ?? live ?? whsec}${REDACTED}` : `${scheme}${REDACTED}@`,
  );
}

/** `text` with the given secrets (and each line of one, should it hold a newline) and every secret shape redacted. */
export function redact(text: string, secrets?: readonly string[]): string {
  let out = text;
  for (const secret of secrets ?? []) {
    // A key pasted with a newline inside reaches messages line by line: each piece is secret.
    // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are exactly what splits a pasted key.
    for (const piece of secret.split(/[\s\0-\x1f\x7f]+/)) {
      if (piece.length >= MIN_EXACT_SECRET) out = out.split(piece).join(REDACTED);
    }
  }
  return redactShapes(out);
}

/** At most `max` characters, saying how much was cut. */
export function cap(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}…`;
}

/**
 * The error itself when nothing in it looks secret; else a plain copy (name, code, message and
 * stack redacted) that is safe to keep as `cause`. Its own causes are dropped: fetch nests the
 * socket error there, and the copy keeps that error's `code` in its message already.
 */
export function sanitizeCause(cause: unknown, secrets?: readonly string[]): unknown {
  if (!(cause instanceof Error)) return typeof cause === 'string' ? redact(cause, secrets) : cause;
  const message = redact(cause.message, secrets);
  const stack = cause.stack && redact(cause.stack, secrets);
  const inner = (cause as { cause?: unknown }).cause;
  if (message === cause.message && stack === cause.stack && sanitizeCause(inner, secrets) === inner) return cause;
  const copy = new Error(message);
  copy.name = cause.name;
  copy.stack = stack;
  (copy as { code?: unknown }).code = (cause as { code?: unknown }).code;
  return copy;
}
