/** What `crypto.randomUUID()` makes: a version-4 UUID in lower case, the only form an anonymous user id takes. */
const RANDOM_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/**
 * The id in cookie `name` of a `Cookie` header, when its value is exactly an id
 * `crypto.randomUUID()` makes; otherwise undefined (the app then mints a new one). The value is
 * all that follows the first `=`, so `<id>=x`, `<id>;`-glued text or a quoted id is no id: an
 * `identify` that took a prefix would let a forged value name a real user. The first cookie of
 * that name decides (browsers send the one set on the longest path first), as in every adapter.
 */
export function idFromCookie(header: string | null | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at < 0 || part.slice(0, at).trim() !== name) continue;
    const value = part.slice(at + 1).trim();
    return RANDOM_ID.test(value) ? value : undefined;
  }
  return undefined;
}
