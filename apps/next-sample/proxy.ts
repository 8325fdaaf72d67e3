import type { NextRequest } from 'next/server';
import { withUser } from './lib/user';

/**
 * On every page and API request but the webhook receiver's: the browser's user (lib/user.ts),
 * set on first contact so the first page load already lists that user's generations. A path
 * with broken percent-encoding (`/api/generations/%ZZ`) would make Next fail decoding the
 * catch-all's params with a bare 500; it is the caller's mistake, so it gets a 400 error body.
 */
export function proxy(request: NextRequest): Response {
  try {
    decodeURIComponent(request.nextUrl.pathname);
  } catch {
    return Response.json(
      {
        error: 'INVALID_BODY',
        message: 'The path is not valid percent-encoding.',
        next: 'Encode the id with encodeURIComponent.',
        request_id: null,
      },
      { status: 400 },
    );
  }
  return withUser(request);
}

/**
 * Everything but Next's static files, the webhook receiver and the upload route: Next clones a
 * body for its proxy and holds the route until that whole body has arrived (up to
 * `proxyClientMaxBodySize`, 10 MB, cutting a longer one short), which would take the receiver's
 * and the upload route's deadlines and size caps out of their hands (see @mediagen/next's README)
 * and break every upload over 10 MB. The service's deliveries carry no user anyway, and an upload
 * comes from the studio's page, whose load gave the browser its user. Only that exact path: anything below
 * it is another path of the catch-all, whose broken percent-encoding must reach the check above.
 */
export const config = { matcher: '/((?!_next/static/|_next/image/|favicon\\.ico$|api/webhooks/mediagen/?$|api/uploads/?$|api/health$).*)' };
