import { ENDPOINTS, matchEndpoint } from '@mediagen/core/wire';

/**
 * A request's route template, never its raw URL: the path template of the contract's endpoint
 * table (`ENDPOINTS` in `@mediagen/core/wire`) that the path matches (a generation id becomes
 * `{id}`, an output link's signature `{signature}`), and `other` for a path the table lacks, so
 * no id, signed link, token or query string ever reaches a span.
 */
export function routeOf(url: URL): string {
  const matched = matchEndpoint(url.pathname);
  return matched ? ENDPOINTS[matched.name].path : 'other';
}
