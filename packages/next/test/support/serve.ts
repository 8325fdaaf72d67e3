import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sendWebResponse, toWebRequest } from '@mediagen/core/node';

type Route = (request: Request) => Promise<Response>;

/**
 * Serves a route module's handlers over real HTTP, as Next's Node server does: the Node request
 * becomes a Web `Request` (core's shared Node layer), the method picks the export (one handler
 * serves every method), and the `Response` is written back. A method the module does not export
 * gets Next's bare 405.
 */
export async function serveRoute(route: Route | object) {
  const server = createServer(async (req, res) => {
    try {
      const request = toWebRequest(req);
      const method = typeof route === 'function' ? route : (route as Record<string, unknown>)[req.method ?? 'GET'];
      const response = typeof method === 'function' ? await (method as Route)(request) : new Response(null, { status: 405 });
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
