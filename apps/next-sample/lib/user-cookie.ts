// One file shared by the MediaGen sample apps, the same in each (its source: apps/shared/ in the MediaGen repo).
import { idFromCookie } from '@mediagen/core/server';

/**
 * The anonymous user's cookie: a stand-in for the app's own login. A browser gets a random id in
 * this cookie on first contact and keeps it (across requests and restarts of the app), and every
 * generation read, list and stream answers only that id's generations. The framework's side (who
 * sets it, where the user is kept for the request) lives beside this file in `user.ts`, the one
 * place a copied app plugs its own auth into.
 */
export const USER_COOKIE = 'mediagen_user';

/** A year, in seconds: a user's generations stay theirs across visits. */
export const USER_COOKIE_MAX_AGE_S = 365 * 24 * 3600;

/**
 * The user a request's `Cookie` header names, or undefined: the value must be exactly an id
 * `randomUUID` makes (core's one rule), so a forged or garbled one is no user and is replaced.
 */
export function userFromCookie(header: string | null | undefined): string | undefined {
  return idFromCookie(header, USER_COOKIE);
}

/**
 * A new user for a browser that has none: its id, and the `Set-Cookie` value that gives it.
 * HttpOnly: page scripts never see it. SameSite=Lax: another site's page cannot send it with a
 * POST. Secure when the app is reached over HTTPS (`secure`), so it never travels in clear; behind
 * a proxy that terminates TLS, tell the framework to trust the proxy's `X-Forwarded-Proto`.
 */
export function newUser(secure: boolean): { id: string; setCookie: string } {
  const id = crypto.randomUUID();
  const attributes = ['Path=/', `Max-Age=${USER_COOKIE_MAX_AGE_S}`, 'HttpOnly', 'SameSite=Lax', ...(secure ? ['Secure'] : [])];
  return { id, setCookie: [`${USER_COOKIE}=${id}`, ...attributes].join('; ') };
}
