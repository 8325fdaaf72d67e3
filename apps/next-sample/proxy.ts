import { NextResponse } from 'next/server';

/**
 * A path with broken percent-encoding (`/api/generations/%ZZ`) would make Next fail decoding
 * the route params with a bare 500; it is the caller's mistake, so it gets a 400 error body.
 */
export function proxy(request: Request): Response | undefined {
  try {
    decodeURIComponent(new URL(request.url).pathname);
    return NextResponse.next();
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
}

/**
 * Every API route except the webhook receiver: Next clones a body for its proxy and holds the
 * route until that whole body has arrived (up to `proxyClientMaxBodySize`, 10 MB), which would
 * take the receiver's deadline and size cap out of its hands (see @mediagen/next's README).
 */
export const config = { matcher: '/api/((?!webhooks/mediagen(?:/|$)).*)' };
