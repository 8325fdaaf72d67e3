/** Cross-origin access for the app's routes: none unless the app lists the origins it trusts. */
export interface CorsOptions {
  /** Exact origins (`https://app.example.com`) whose pages may call these routes with the user's cookie. */
  origins: readonly string[];
  /** How long a browser may cache a preflight answer, in seconds. Default 600. */
  maxAgeSeconds?: number;
}

/**
 * The CORS headers for `origin`, or none when it is not on the allowlist (the browser then
 * blocks the page). With CORS on, every answer varies by `Origin`, the refused ones too: a
 * shared cache must never hand one origin's answer to another.
 */
export function corsHeaders(cors: CorsOptions | undefined, origin: string | null): Record<string, string> {
  if (!cors) return {};
  if (!origin || !cors.origins.includes(origin)) return { vary: 'origin' };
  return { 'access-control-allow-origin': origin, 'access-control-allow-credentials': 'true', vary: 'origin' };
}

/** The answer to a preflight from an allowlisted origin. */
export function preflight(cors: CorsOptions, origin: string, methods: readonly string[]): Response {
  return new Response(null, {
    status: 204,
    headers: {
      ...corsHeaders(cors, origin),
      'access-control-allow-methods': methods.join(', '),
      'access-control-allow-headers': 'content-type, idempotency-key',
      'access-control-max-age': String(cors.maxAgeSeconds ?? 600),
    },
  });
}

/** `response` with `headers` added (a `Response`'s own headers may be immutable). */
export function withHeaders(response: Response, headers: Record<string, string>): Response {
  const names = Object.keys(headers);
  if (names.length === 0) return response;
  const merged = new Headers(response.headers);
  // `Vary` is a list: the response's own entries stay.
  for (const name of names) name === 'vary' ? merged.append(name, headers[name]!) : merged.set(name, headers[name]!);
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers: merged });
}
