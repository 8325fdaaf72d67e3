import { type NextRequest, NextResponse } from 'next/server';

/**
 * Who the browser's user is: THE place a copied app plugs its own auth in. This stand-in gives
 * each browser a random id in a cookie on its first request (proxy.ts), so every read, list and
 * stream answers only that browser's generations, across requests and restarts. Replace
 * `userOf` with your session lookup (and drop `withUser` from proxy.ts).
 */
export const USER_COOKIE = 'mediagen_user';
const USER_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** A year: the user's generations stay theirs across visits. */
const MAX_AGE_SECONDS = 365 * 24 * 3600;

/** The user a request comes from (the handler's `identify`), or undefined without a valid cookie. */
export function userOf(request: Request): string | undefined {
  for (const part of (request.headers.get('cookie') ?? '').split(';')) {
    const [name, value] = part.trim().split('=');
    if (name === USER_COOKIE && value && USER_ID.test(value)) return value;
  }
  return undefined;
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
  headers.set('cookie', [request.headers.get('cookie'), `${USER_COOKIE}=${id}`].filter(Boolean).join('; '));
  const response = NextResponse.next({ request: { headers } });
  const https = request.nextUrl.protocol === 'https:' || request.headers.get('x-forwarded-proto')?.split(',')[0]?.trim() === 'https';
  response.cookies.set(USER_COOKIE, id, { httpOnly: true, sameSite: 'lax', secure: https, path: '/', maxAge: MAX_AGE_SECONDS });
  return response;
}
