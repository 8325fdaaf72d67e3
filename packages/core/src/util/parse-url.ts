/**
 * `url` (resolved against `base`, when given) as a URL, or undefined when it is not one. The one
 * parse of an address from outside that never throws, shared so each reader does not repeat it.
 */
export function parseUrl(url: string | URL, base?: string): URL | undefined {
  try {
    return new URL(url, base);
  } catch {
    // Not a URL (or a value that is no string): the caller says what it needed.
    return undefined;
  }
}
