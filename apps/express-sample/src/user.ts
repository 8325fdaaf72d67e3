import type { Request, RequestHandler } from 'express';
import { newUser, userFromCookie } from './user-cookie.js';

/**
 * Who the browser is: the one place a copied app plugs its auth into. This sample has no
 * accounts, so each browser gets an anonymous user on first contact: a random id in a cookie
 * (user-cookie.ts: HttpOnly, SameSite=Lax, Secure over HTTPS). Every generation read, list and
 * stream is scoped to it by the handler. With real auth, replace `userCookie` with your session
 * middleware and `userOf` with "the signed-in user's id".
 */

/** Sets the user cookie on first contact and keeps the user on `res.locals` for `userOf`. */
export const userCookie: RequestHandler = (req, res, next) => {
  // Anything but an id the app made (forged, garbled) is no user: replaced by a fresh one.
  let user = userFromCookie(req.headers.cookie);
  if (!user) {
    // `req.secure` honours the app's `trust proxy` setting behind a TLS-terminating proxy.
    const fresh = newUser(req.secure);
    user = fresh.id;
    res.append('Set-Cookie', fresh.setCookie);
  }
  res.locals.user = user;
  next();
};

/** The handler's `identify`: the user `userCookie` found or made for this request. */
export function userOf(req: Request | undefined): string | undefined {
  const user = req?.res?.locals.user;
  return typeof user === 'string' ? user : undefined;
}
