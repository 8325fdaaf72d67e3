import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { idFromCookie } from '@mediagen/core/server';

/**
 * Who the browser's user is: THE ONE PLACE A COPIED APP PLUGS ITS AUTH INTO.
 *
 * This sample has no login, so each browser gets an anonymous id in a cookie on first contact,
 * and keeps it (across requests and restarts of the app). Everything else follows from
 * `currentUser`: `MediaGenModule`'s routes record each submit under it and answer only that
 * user's generations (another user's id is 404). In a real app, replace both functions with your
 * session or Passport: set `req.user` in your own middleware or guard and keep `currentUser`.
 */

const COOKIE = 'nest_sample_user';
const ONE_YEAR_S = 365 * 24 * 3600;

/** Express's request (`secure` honours `trust proxy`), as far as this file reads and writes it. */
type UserRequest = IncomingMessage & { secure?: boolean; user?: { id: string } };

/** Nest middleware (see `AppModule.configure`): reads the user's cookie, or sets one on first contact. */
export function userCookie(req: UserRequest, res: ServerResponse, next: () => void): void {
  // Exactly an id `randomUUID` makes (core's one rule); any other value (forged, garbled) is replaced by a fresh id.
  let id = idFromCookie(req.headers.cookie, COOKIE);
  if (!id) {
    id = randomUUID();
    // HttpOnly: page scripts never see it. SameSite=Lax: another site's page cannot send it with
    // a POST. Secure over HTTPS, so it never travels in clear once the app is served over TLS
    // (behind a proxy that terminates TLS, set Express's `trust proxy` so `req.secure` knows).
    const attributes = ['Path=/', `Max-Age=${ONE_YEAR_S}`, 'HttpOnly', 'SameSite=Lax', ...(req.secure ? ['Secure'] : [])];
    res.appendHeader('set-cookie', [`${COOKIE}=${id}`, ...attributes].join('; '));
  }
  req.user = { id };
  next();
}

/** The user of a request the middleware saw (what `MediaGenModule`'s `identify` returns). */
export function currentUser(req: unknown): string | undefined {
  return (req as UserRequest | undefined)?.user?.id;
}
