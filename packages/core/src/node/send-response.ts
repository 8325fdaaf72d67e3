import type { NodeResponseLike } from './types';

/** Writes a Web `Response` (status, headers, body) to a Node response. */
export async function sendWebResponse(res: NodeResponseLike, response: Response): Promise<void> {
  res.statusCode = response.status;
  for (const [name, value] of response.headers) res.setHeader(name, value);
  res.end(new Uint8Array(await response.arrayBuffer()));
}
