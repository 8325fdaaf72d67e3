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
      const chunks: Uint8Array[] = [];
      for await (const chunk of req) chunks.push(chunk as Uint8Array);
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string') headers.set(name, value);
      const method = req.method ?? 'GET';
      const request = new Request(`http://${req.headers.host}${req.url}`, {
        method,
        headers,
        body: method === 'GET' || method === 'HEAD' ? undefined : Buffer.concat(chunks),
      });
      const response = await handler(request);
      res.writeHead(response.status, Object.fromEntries(response.headers));
      res.end(Buffer.from(await response.arrayBuffer()));
    });
    return { origin: server.origin, close: server.close };
  },
});
