import { errorResponse } from '@mediagen/core/server';
import { studio } from '../../../../../lib/mediagen';

const { client } = studio();
const MAX_TEXT_BYTES = 64 * 1024;

/**
 * A text result, for the gallery to show inline. Read on the server: output links live on the
 * service's origin, which a page cannot read across origins.
 */
export async function GET(_request: Request, context: { params: Promise<{ id: string }> }): Promise<Response> {
  try {
    const generation = await client.generations.get((await context.params).id);
    const bytes = await client.generations.download(generation);
    const text = new TextDecoder().decode(bytes.subarray(0, MAX_TEXT_BYTES));
    return new Response(text, { headers: { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'private, max-age=3600' } });
  } catch (error) {
    return errorResponse(error);
  }
}
