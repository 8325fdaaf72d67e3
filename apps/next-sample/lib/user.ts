import { type NextRequest, NextResponse } from 'next/server';
import { newUser, USER_COOKIE, userFromCookie } from './user-cookie';

/**
 * Who the browser's user is: THE place a copied app plugs its own auth in. This stand-in gives
 * each browser a random id in a cookie on its first request (proxy.ts; user-cookie.ts: HttpOnly,
 * SameSite=Lax, Secure over HTTPS), so every read, list and stream answers only that browser's
 * generations, across requests and restarts. Replace `userOf` with your session lookup (and drop
 * `withUser` from proxy.ts).
 */

/**
 * The user a request comes from (the handler's `identify`), or undefined without a valid cookie:
 * its value must be exactly an id `randomUUID` makes (core's one rule, shared by every sample).
 */
export function userOf(request: Request): string | undefined {
  return userFromCookie(request.headers.get('cookie'));
}

/**
 * For proxy.ts: a request without a user gets one, set on the response and on the request
 * itself, so the page or route this very request renders already sees it.
 */
export function withUser(request: NextRequest): NextResponse {
  if (userOf(request)) return NextResponse.next();
  const https = request.nextUrl.protocol === 'https:' || request.headers.get('x-forwarded-proto')?.split(',')[0]?.trim() === 'https';
  const { id, setCookie } = newUser(https);
  const headers = new Headers(request.headers);
  // The refused value goes from the request: the first cookie of the name is the one read.
  const others = (request.headers.get('cookie') ?? '').split(';').filter((part) => part.split('=')[0]?.trim() !== USER_COOKIE);
  headers.set('cookie', [...others.map((part) => part.trim()).filter(Boolean), `${USER_COOKIE}=${id}`].join('; '));
  const response = NextResponse.next({ request: { headers } });
  response.headers.append('set-cookie', setCookie);
  return response;
}
