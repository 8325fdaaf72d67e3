import type { MediaGenClient } from '../client';
import { isMediaGenError } from '../errors';
import { EMULATOR_BASE_URL, EMULATOR_COMMAND } from '../wire/emulator';
import { APP_ROUTES } from '../wire/paths';
import { normalizeBasePath } from './routes';

/**
 * What the browser (or the developer) should do next, said in the app's terms where the code
 * table's words are the service's: a model error names the app's model route, not the service's
 * `GET /api/v1/models`; a connection the local emulator's default address refused says how to
 * start it. Undefined where the error's own `next` stands.
 */
export function nextStep(
  error: unknown,
  where: { client: Pick<MediaGenClient, 'baseUrl'>; basePath?: string | undefined },
): string | undefined {
  const code = isMediaGenError(error) ? error.code : undefined;
  if (code === 'UNKNOWN_MODEL' || code === 'MODEL_NOT_ALLOWED') {
    return `Use a slug from GET ${normalizeBasePath(where.basePath)}${APP_ROUTES.models}.`;
  }
  if ((code === 'CONNECTION_ERROR' || code === 'TIMEOUT') && where.client.baseUrl === EMULATOR_BASE_URL) {
    return `Nothing answered at ${EMULATOR_BASE_URL}, the local emulator (the default outside production): start it with ${EMULATOR_COMMAND}, or set MEDIAGEN_BASE_URL.`;
  }
  return undefined;
}

/** `error` with its `next` in the app's terms (`nextStep`), thrown on. */
export function explained(where: Parameters<typeof nextStep>[1]): (error: unknown) => never {
  return (error) => {
    const next = nextStep(error, where);
    if (next) (error as { next: string }).next = next;
    throw error;
  };
}
