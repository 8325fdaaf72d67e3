import { randomUUID } from 'node:crypto';
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

/** A random id as `randomUUID` makes it; anything else in the cookie is ignored and replaced. */
const USER_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const YEAR_MS = 365 * 24 * 3_600_000;

/** Sets the user cookie on first contact and keeps the user on `res.locals` for `userOf`. */
export const userCookie: RequestHandler = (req, res, next) => {
  const sent = cookieValue(req.headers.cookie, USER_COOKIE);
  let user = sent && USER_ID.test(sent) ? sent : undefined;
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

function cookieValue(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}
