// The service's endpoints (spec: Endpoints, Other addresses): one table of method and path that
// the client, the emulator's router and faults, and OpenTelemetry's route names all read. The
// client reads it at compile time: each request it sends is written out as a literal and checked
// against its row with `satisfies EndpointRequest<'name'>`, so a path or method that drifts from
// the table does not compile, and an app's bundle carries no table, no row object and no template
// code (the table tree-shakes away). `{name}` stands for exactly one non-empty path segment.

/** A row of the table: the method and the path template (`{name}` is one path segment). */
export interface Endpoint {
  readonly method: 'GET' | 'POST';
  readonly path: `/${string}`;
}

/** Every endpoint of the service, by the name the emulator's faults use (`endpoint: 'status'`). */
export const ENDPOINTS = {
  /** `POST /api/v1/generate`: submit (and `estimate: true`). */
  generate: { method: 'POST', path: '/api/v1/generate' },
  /** `GET /api/v1/generations/{id}`: one generation's status. */
  status: { method: 'GET', path: '/api/v1/generations/{id}' },
  /** `GET /api/v1/models`: the account's model list. */
  models: { method: 'GET', path: '/api/v1/models' },
  /** `GET /api/v1/credits`: the wallet. */
  credits: { method: 'GET', path: '/api/v1/credits' },
  /** A signed output link (`outputLinkPath` builds one); no Authorization header. */
  output: { method: 'GET', path: '/api/v1/output/{generation_id}/{expiry_epoch_seconds}/{signature}/{index}/{filename}' },
} as const satisfies Record<string, Endpoint>;

export type EndpointName = keyof typeof ENDPOINTS;

/** A path template with each `{…}` segment filled: `/api/v1/generations/${string}`. */
export type FilledPath<P extends string> = P extends `${infer Head}{${string}}${infer Tail}` ? `${Head}${string}${FilledPath<Tail>}` : P;

/**
 * A request to the endpoint `N` as the client writes it: the row's method, and its path with each
 * `{…}` segment filled (the status request's path is any `/api/v1/generations/${string}`). The
 * client's requests are written `{ method, path } satisfies EndpointRequest<'status'>`. A type
 * only: it costs an app's bundle nothing.
 */
export interface EndpointRequest<N extends EndpointName> {
  readonly method: (typeof ENDPOINTS)[N]['method'];
  readonly path: FilledPath<(typeof ENDPOINTS)[N]['path']>;
}

/**
 * The endpoint a request path (no query) names, with its `{…}` segments as sent (still
 * percent-encoded), or undefined for a path the service does not have. The method is not
 * compared: a known path with another method is the caller's 405, not an unknown route.
 */
export function matchEndpoint(path: string): { name: EndpointName; params: string[] } | undefined {
  const segments = path.split('/');
  for (const name of Object.keys(ENDPOINTS) as EndpointName[]) {
    const parts = ENDPOINTS[name].path.split('/');
    if (parts.length !== segments.length) continue;
    const params: string[] = [];
    const fits = parts.every((part, i) => {
      const segment = segments[i] as string;
      if (!part.startsWith('{')) return part === segment;
      params.push(segment);
      return segment !== '';
    });
    if (fits) return { name, params };
  }
  return undefined;
}

/** `endpoint`'s path with its `{…}` segments filled in order, each percent-encoded. */
export function endpointPath(endpoint: Endpoint, ...params: string[]): string {
  let i = 0;
  return endpoint.path.replace(/\{[^}]*\}/g, () => encodeURIComponent(params[i++] ?? ''));
}

/**
 * The routes an app serves to its own front end with `createMediaGenHandler` (from
 * `@mediagen/core/server`), relative to the base path the app mounts them at (`/api`). The
 * browser-side hooks build their URLs from the same table.
 */
export const APP_ROUTES = {
  /**
   * `POST`: submit (the 202 body; a submit that waits in the app's gate, asked with `Accept:
   * text/event-stream`, is told its place first: `SUBMIT_EVENTS`); `GET`: this user's generations, newest first.
   */
  generations: '/generations',
  /** `GET /generations/:id`: one generation, read live. */
  generation: '/generations/:id',
  /** `GET /generations/:id/events`: server-sent events, one `data:` line per status change. */
  events: '/generations/:id/events',
  /**
   * `POST /generations/:id/cancel` (`:id` a generation id, or the submission's `Idempotency-Key`
   * as the browser sent it): stops it if it was not sent (nothing charged), else stops following
   * it (it goes on and is billed). Answers `{ outcome, charged, generation }`; served with a
   * source that can cancel (the generation ledger).
   */
  cancel: '/generations/:id/cancel',
  /** `GET /generations/events`: server-sent events for every generation of the current user (their feed). */
  feed: '/generations/events',
  /** `GET`: the account's credit summary. */
  credits: '/credits',
  /** `GET`: the current user's budget (limits, what is left, when it resets), with the handler's `budget` option. */
  budget: '/budget',
  /** `POST`: the price of a request, nothing charged. */
  estimate: '/estimate',
  /** `GET`: the models the browser may use. */
  models: '/models',
  /** `POST`: the service's signed webhook deliveries. */
  webhook: '/webhooks/mediagen',
  /** `POST`: a file's bytes as the body (its media type as `Content-Type`); 201 `{ input }` for a submit's input fields. */
  uploads: '/uploads',
  /** `GET /uploads/:key` (the key may hold `/`): an uploaded file under its signed link (the filesystem store's links; what the service fetches). */
  upload: '/uploads/:key',
  /** `GET`: whether the app is configured to serve (200 `{ ok: true }`, or 503 with its problems). */
  health: '/health',
} as const;
