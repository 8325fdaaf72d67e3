import type { IncomingMessage, ServerResponse } from 'node:http';
import { newUser, userFromCookie } from './user-cookie.js';

/**
 * Who the browser's user is: THE ONE PLACE A COPIED APP PLUGS ITS AUTH INTO.
 *
 * This sample has no login, so each browser gets an anonymous id in a cookie on first contact
 * (user-cookie.ts: HttpOnly, SameSite=Lax, Secure over HTTPS), and keeps it (across requests and
 * restarts of the app). Everything else follows from `currentUser`: `MediaGenModule`'s routes
 * record each submit under it and answer only that user's generations (another user's id is 404).
 * In a real app, replace both functions with your session or Passport: set `req.user` in your own
 * middleware or guard and keep `currentUser`.
 */

/** Express's request (`secure` honours `trust proxy`), as far as this file reads and writes it. */
type UserRequest = IncomingMessage & { secure?: boolean; user?: { id: string } };

/** Nest middleware (see `AppModule.configure`): reads the user's cookie, or sets one on first contact. */
export function userCookie(req: UserRequest, res: ServerResponse, next: () => void): void {
  // Anything but an id the app made (forged, garbled) is no user: replaced by a fresh one.
  let id = userFromCookie(req.headers.cookie);
  if (!id) {
    // Behind a proxy that terminates TLS, set Express's `trust proxy` so `req.secure` knows.
    const fresh = newUser(req.secure === true);
    id = fresh.id;
    res.appendHeader('set-cookie', fresh.setCookie);
  }
  req.user = { id };
  next();
}

/** The user of a request the middleware saw (what `MediaGenModule`'s `identify` returns). */
export function currentUser(req: unknown): string | undefined {
  return (req as UserRequest | undefined)?.user?.id;
}
