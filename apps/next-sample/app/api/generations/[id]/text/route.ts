import { errorResponse } from '@mediagen/core/server';
import { studio } from '../../../../../lib/mediagen';
import { userOf } from '../../../../../lib/user';

const MAX_TEXT_BYTES = 64 * 1024;

/**
 * A text result, for the gallery to show inline. Read on the server: output links live on the
 * service's origin, which a page cannot read across origins. Only the user's own (the handler's
 * read rules: another user's id is 404).
 */
export async function GET(request: Request, context: { params: Promise<{ id: string }> }): Promise<Response> {
  try {
    const { client, handler } = studio();
    const generation = await handler.actions.get((await context.params).id, { owner: userOf(request), request });
    const bytes = await client.generations.download(generation);
    const text = new TextDecoder().decode(bytes.subarray(0, MAX_TEXT_BYTES));
    return new Response(text, { headers: { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'private, max-age=3600' } });
  } catch (error) {
    return errorResponse(error);
  }
}
