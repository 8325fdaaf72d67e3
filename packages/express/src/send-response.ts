import type { Response as ExpressResponse } from 'express';

/** Writes a Web `Response` (status, headers, body) through Express. */
export async function sendWebResponse(res: ExpressResponse, response: Response): Promise<void> {
  res.status(response.status);
  response.headers.forEach((value, name) => res.setHeader(name, value));
  res.end(Buffer.from(await response.arrayBuffer()));
}
