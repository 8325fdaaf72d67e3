import { APP_ROUTES } from '@mediagen/core/wire';

/** The handler's routes under `basePath` (where the app mounts `createMediaGenHandler`, `/api` by default). */
export function routeUrl(basePath: string, route: keyof typeof APP_ROUTES, id?: string): string {
  const base = basePath.endsWith('/') ? basePath.slice(0, -1) : basePath;
  return base + APP_ROUTES[route].replace(':id', encodeURIComponent(id ?? ''));
}
