/**
 * A request's route template, never its raw URL: a generation id becomes `{id}`, and anything
 * that is not an API route (an output link, whose query is its signature) is `download`, so no
 * signed link, token or query string ever reaches a span.
 */
export function routeOf(url: URL): string {
  const path = url.pathname;
  if (/^\/api\/v1\/generations\/[^/]+$/.test(path)) return '/api/v1/generations/{id}';
  if (/^\/api\/v1\/(?:generate|models|credits)$/.test(path)) return path;
  return 'download';
}
