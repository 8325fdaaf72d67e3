import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sendWebResponse, toWebRequest } from '@mediagen/core/node';

/**
 * Serves a Web route handler over real HTTP, as Next's Node server does: the Node request
 * becomes a Web `Request` (core's shared Node layer), the `Response` is written back.
 */
export async function serveRoute(handler: (request: Request) => Promise<Response>) {
  const server = createServer(async (req, res) => {
    try {
      const request = toWebRequest(req);
      const response = await handler(request);
      // A body refused unread (413 by Content-Length) is drained, so the connection stays usable.
      await request.body?.cancel().catch(() => {});
      await sendWebResponse(res, response);
    } catch {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
