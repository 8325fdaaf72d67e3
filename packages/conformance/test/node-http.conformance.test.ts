import type { IncomingMessage } from 'node:http';
import { createNodeHandler } from '@mediagen/core/node';
import { createWebhookHandler } from '@mediagen/core/server';
import { describeWebhookConformance, listen } from '../src/index';

// Core's receiver alone through core's Node layer on a bare node:http server: the base every Node adapter builds on.
describeWebhookConformance({
  name: 'node:http (createNodeHandler(createWebhookHandler))',
  async start(options) {
    const receive = createNodeHandler(createWebhookHandler<IncomingMessage>({ ...options, onError: () => {} }));
    const server = await listen((req, res) => void receive(req, res));
    return { url: `${server.origin}/webhooks`, close: server.close };
  },
});
