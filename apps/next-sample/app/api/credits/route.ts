import { errorResponse } from '@mediagen/core/server';
import { studio } from '../../../lib/mediagen';

const { client } = studio();

/** The balance, for the page's header (the key stays on the server). */
export async function GET(): Promise<Response> {
  try {
    const { balance, tier } = await client.credits.get();
    return Response.json({ balance, tier }, { headers: { 'cache-control': 'no-store' } });
  } catch (error) {
    return errorResponse(error);
  }
}
