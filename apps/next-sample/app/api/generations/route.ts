import { createApiHandler } from '@mediagen/core/server';
import { studio } from '../../../lib/mediagen';

const { client } = studio();

// POST: submit (body = generate params) answering the 202 body. The page's Idempotency-Key
// header is passed through, so a double click or a resent form bills once.
const api = createApiHandler({ client, onSubmitted: (submitted, params) => studio().store.addSubmitted(submitted, params) });

export function POST(request: Request): Promise<Response> {
  return api.handle(request, '/generations', undefined);
}

/** What the app knows, newest first. */
export function GET(): Response {
  return Response.json({ generations: studio().store.list() }, { headers: { 'cache-control': 'no-store' } });
}
