import { createNodeWebhookHandler } from '@mediagen/core/node';
import { describeWebhookConformance, listen } from '../src/index';

// Core's Node layer on a bare node:http server: the base every Node adapter builds on.
describeWebhookConformance({
  name: 'node:http (createNodeWebhookHandler)',
  async start(options) {
    const receive = createNodeWebhookHandler({ ...options, onError: () => {} });
    const server = await listen((req, res) => void receive(req, res));
    return { url: `${server.origin}/webhooks`, close: server.close };
  },
});
