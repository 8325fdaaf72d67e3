import { describeWebhookConformance } from '@mediagen/conformance';
import { createWebhookHandler } from '../src';
import { serveRoute } from './support/serve';

describeWebhookConformance({
  name: 'next route handler',
  start: async ({ secrets, onEvent, limit }) => {
    const { origin, close } = await serveRoute(createWebhookHandler({ secrets, onEvent, maxBodyBytes: limit }));
    return { url: `${origin}/api/webhooks/mediagen`, close };
  },
});
