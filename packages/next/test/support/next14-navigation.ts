/**
 * `next/navigation` as Next 14 has it, for the server actions' tests (vitest.config.ts aliases it
 * here in the `next14-navigation` project): no `unstable_rethrow`, and `redirect()`/`notFound()`
 * throwing with Next 14's digests (next@14.2's `client/components/redirect.js` and
 * `not-found.js`). The release check `previous-majors` runs the same actions in a real Next 14 app.
 */
export function redirect(url: string, type: 'replace' | 'push' = 'replace'): never {
  throw Object.assign(new Error('NEXT_REDIRECT'), { digest: `NEXT_REDIRECT;${type};${url};307;` });
}

export function notFound(): never {
  throw Object.assign(new Error('NEXT_NOT_FOUND'), { digest: 'NEXT_NOT_FOUND' });
}
