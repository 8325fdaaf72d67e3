import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * Stands in for `next/headers` in these tests (vitest.config.ts aliases it here): Next gives a
 * server action its request's headers from its own request scope, which exists only inside a
 * Next server. `asRequest(headers, fn)` runs `fn` as an action called with those headers. The
 * studio sample's browser tests run the real one under `next start`.
 */
const scope = new AsyncLocalStorage<Headers>();

export async function headers(): Promise<Headers> {
  const current = scope.getStore();
  if (!current) throw new Error('headers() was called outside a request scope');
  return current;
}

export function asRequest<T>(init: HeadersInit, fn: () => Promise<T>): Promise<T> {
  return scope.run(new Headers(init), fn);
}
