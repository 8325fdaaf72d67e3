import { APP_ROUTES } from '../wire/paths';

export type RouteName = keyof typeof APP_ROUTES;

/** The methods each route answers (an OPTIONS preflight is answered for the allowlisted origins). */
export const ROUTE_METHODS: Record<RouteName, readonly string[]> = {
  generations: ['GET', 'POST'],
  generation: ['GET'],
  events: ['GET'],
  cancel: ['POST'],
  feed: ['GET'],
  credits: ['GET'],
  budget: ['GET'],
  estimate: ['POST'],
  models: ['GET'],
  webhook: ['POST'],
  health: ['GET'],
  uploads: ['POST'],
  upload: ['GET', 'HEAD'],
};

export interface RouteMatch {
  name: RouteName;
  /** The `:id` segment, percent-decoded; undefined on routes without one, or when its encoding is broken. */
  id?: string | undefined;
}

const STATIC = new Map<string, RouteName>(
  (Object.entries(APP_ROUTES) as [RouteName, string][]).filter(([, path]) => !path.includes(':')).map(([name, path]) => [path, name]),
);
const GENERATION = /^\/generations\/([^/]+)$/;
const EVENTS = /^\/generations\/([^/]+)\/events$/;
const CANCEL = /^\/generations\/([^/]+)\/cancel$/;
const UPLOAD = /^\/uploads\/(.+)$/;

/** The route `path` (relative to the base path) names, whatever the method. */
export function matchRoute(path: string): RouteMatch | undefined {
  const trimmed = path.length > 1 && path.endsWith('/') ? path.slice(0, -1) : path;
  const name = STATIC.get(trimmed);
  if (name) return { name };
  const one = GENERATION.exec(trimmed);
  if (one) return { name: 'generation', id: decodeSegment(one[1]!) };
  const events = EVENTS.exec(trimmed);
  if (events) return { name: 'events', id: decodeSegment(events[1]!) };
  const cancel = CANCEL.exec(trimmed);
  if (cancel) return { name: 'cancel', id: decodeSegment(cancel[1]!) };
  const upload = UPLOAD.exec(trimmed);
  if (upload) return { name: 'upload', id: decodeSegment(upload[1]!) };
  return undefined;
}

/** A percent-decoded path segment, or undefined when its encoding is broken (`%ZZ`). */
function decodeSegment(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/** `path` relative to `basePath` (`/api`), or undefined when it lies outside it. */
export function relativePath(pathname: string, basePath: string): string | undefined {
  if (basePath === '') return pathname;
  if (pathname === basePath) return '/';
  return pathname.startsWith(`${basePath}/`) ? pathname.slice(basePath.length) : undefined;
}

/** `'/api/'`, `'api'` and `'/api'` all as `'/api'`; `'/'` and `''` as `''`. */
export function normalizeBasePath(basePath: string | undefined): string {
  const parts = (basePath ?? '').split('/').filter(Boolean);
  return parts.length ? `/${parts.join('/')}` : '';
}
