import { randomUUID } from 'node:crypto';
import { idFromCookie } from '@mediagen/core/server';
import type { Request, RequestHandler } from 'express';

/**
 * Who the browser is: the one place a copied app plugs its auth into. This sample has no
 * accounts, so each browser gets an anonymous user on first contact: a random id in a cookie
 * (HttpOnly: page scripts never see it; SameSite=Lax: other sites' posts do not carry it; Secure
 * when served over HTTPS, so it never travels in clear). Every generation read, list and stream
 * is scoped to it by the handler. With real auth, replace `userCookie` with your session
 * middleware and `userOf` with "the signed-in user's id".
 */
export const USER_COOKIE = 'mediagen_user';

const YEAR_MS = 365 * 24 * 3_600_000;

/** Sets the user cookie on first contact and keeps the user on `res.locals` for `userOf`. */
export const userCookie: RequestHandler = (req, res, next) => {
  // Exactly an id `randomUUID` makes (core's one rule); anything else in the cookie is ignored and replaced.
  let user = idFromCookie(req.headers.cookie, USER_COOKIE);
  if (!user) {
    user = randomUUID();
    // `req.secure` honours the app's `trust proxy` setting behind a TLS-terminating proxy.
    res.cookie(USER_COOKIE, user, { httpOnly: true, sameSite: 'lax', secure: req.secure, path: '/', maxAge: YEAR_MS });
  }
  res.locals.user = user;
  next();
};

/** The handler's `identify`: the user `userCookie` found or made for this request. */
export function userOf(req: Request | undefined): string | undefined {
  const user = req?.res?.locals.user;
  return typeof user === 'string' ? user : undefined;
}
