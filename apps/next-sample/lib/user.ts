import { idFromCookie } from '@mediagen/core/server';
import { type NextRequest, NextResponse } from 'next/server';

/**
 * Who the browser's user is: THE place a copied app plugs its own auth in. This stand-in gives
 * each browser a random id in a cookie on its first request (proxy.ts), so every read, list and
 * stream answers only that browser's generations, across requests and restarts. Replace
 * `userOf` with your session lookup (and drop `withUser` from proxy.ts).
 */
export const USER_COOKIE = 'mediagen_user';
/** A year: the user's generations stay theirs across visits. */
const MAX_AGE_SECONDS = 365 * 24 * 3600;

/**
 * The user a request comes from (the handler's `identify`), or undefined without a valid cookie:
 * its value must be exactly an id `randomUUID` makes (core's one rule, shared by every sample).
 */
export function userOf(request: Request): string | undefined {
  return idFromCookie(request.headers.get('cookie'), USER_COOKIE);
}

/**
 * For proxy.ts: a request without a user gets one, set on the response (`HttpOnly`,
 * `SameSite=Lax`, `Secure` over HTTPS) and on the request itself, so the page or route this
 * very request renders already sees it.
 */
export function withUser(request: NextRequest): NextResponse {
  if (userOf(request)) return NextResponse.next();
  const id = crypto.randomUUID();
  const headers = new Headers(request.headers);
  // The refused value goes from the request: the first cookie of the name is the one read.
  const others = (request.headers.get('cookie') ?? '').split(';').filter((part) => part.split('=')[0]?.trim() !== USER_COOKIE);
  headers.set('cookie', [...others.map((part) => part.trim()).filter(Boolean), `${USER_COOKIE}=${id}`].join('; '));
  const response = NextResponse.next({ request: { headers } });
  const https = request.nextUrl.protocol === 'https:' || request.headers.get('x-forwarded-proto')?.split(',')[0]?.trim() === 'https';
  response.cookies.set(USER_COOKIE, id, { httpOnly: true, sameSite: 'lax', secure: https, path: '/', maxAge: MAX_AGE_SECONDS });
  return response;
}
