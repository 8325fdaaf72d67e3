import type { MediaGenContext, MediaGenHandlerOptions } from './options';
import { routeError } from './route-error';

/**
 * The user a per-user route (submit, list, read, stream) answers for. With no user named the
 * request is refused, unless the app said that every anonymous visitor is one user: otherwise a
 * session cookie that was never set (a `proxy.ts` left out) would quietly make every visitor
 * one user, each seeing the others' generations.
 */
export function userOf<Platform>(
  options: Pick<MediaGenHandlerOptions<Platform>, 'allowAnonymous'>,
  context: MediaGenContext<Platform>,
): string | undefined {
  if (context.owner === undefined && !options.allowAnonymous) {
    throw routeError('USER_UNKNOWN', 'No user is named for this request (no session cookie?).');
  }
  return context.owner;
}
