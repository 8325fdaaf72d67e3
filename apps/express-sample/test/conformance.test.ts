// The monorepo's check of this app (create-mediagen leaves it out of the template: the suites
// are not published).

import { describeRouteConformance, describeWebhookConformance, listen } from '@mediagen/conformance';
import { MediaGenClient } from '@mediagen/core';
import { createApp } from '../src/app.js';

// The Express sample's own app (its user cookie, its mount of the router at /api, its page),
// with the suite's options in place of the ledger and the cookie user it wires in sample.ts.
describeRouteConformance({ name: 'express-sample', start: ({ basePath: _, ...mediagen }) => listen(createApp({ mediagen })) });

const unusedClient = new MediaGenClient({ apiKey: 'svc_live_unused', baseUrl: 'http://127.0.0.1:9' });
describeWebhookConformance({
  name: 'express-sample',
  async start({ secrets, onEvent, limit }) {
    const server = await listen(
      createApp({ mediagen: { client: unusedClient, webhook: { secrets, onEvent, maxBodyBytes: limit }, onError: () => {} } }),
    );
    return { url: `${server.origin}/api/webhooks/mediagen`, close: server.close };
  },
});
