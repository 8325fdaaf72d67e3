import type { IncomingMessage } from 'node:http';
import { createNodeHandler } from '@mediagen/core/node';
import { createMediaGenHandler } from '@mediagen/core/server';
import { describeRouteConformance, listen } from '../src/index';

// Core's handler on a bare node:http server through core's Node layer: the base every Node adapter mounts.
describeRouteConformance({
  name: 'node:http (createNodeHandler)',
  async start(options) {
    const handle = createNodeHandler(createMediaGenHandler(options));
    const server = await listen((req, res) => void handle(req, res));
    return { origin: server.origin, close: server.close };
  },
});

// The Web-standard handler itself, served by Node's own fetch-style bridge: no Node layer at all.
describeRouteConformance({
  name: 'Request/Response (createMediaGenHandler)',
  async start(options) {
    const handler = createMediaGenHandler(options);
    const server = await listen(async (req, res) => {
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(name, value);
      const method = req.method ?? 'GET';
      const request = new Request(`http://${req.headers.host}${req.url}`, {
        method,
        headers,
        // Streamed, as a fetch-style runtime hands it over: the handler's own limits and timeouts apply.
        body: method === 'GET' || method === 'HEAD' ? undefined : streamOf(req),
        duplex: 'half',
      } as RequestInit);
      const response = await handler(request);
      // A body refused unread is not waited for: the answer says `Connection: close`.
      await request.body?.cancel().catch(() => {});
      res.writeHead(response.status, Object.fromEntries(response.headers));
      res.end(Buffer.from(await response.arrayBuffer()));
    });
    return { origin: server.origin, close: server.close };
  },
});

/** The request's body as a Web stream, pulled as the handler reads; cancelled, the rest is drained (not waited for). */
function streamOf(req: IncomingMessage): ReadableStream<Uint8Array> {
  const chunks = req[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const { done, value } = await chunks.next();
        if (done) controller.close();
        else controller.enqueue(new Uint8Array(value as Buffer));
      },
      cancel() {
        req.resume();
      },
    },
    { highWaterMark: 0 },
  );
}
