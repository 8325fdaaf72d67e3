/**
 * The scenario as a Cloudflare Worker module: `POST /run` with the cell's environment as JSON
 * answers the checks' results; every other POST is a webhook delivery for core's receiver, with
 * the secret from the Worker's `MEDIAGEN_WEBHOOK_SECRET` binding.
 */
import { createWebhookHandler } from '@mediagen/core/server';
import { runScenario } from './scenario.js';

export default {
  async fetch(request, bindings) {
    if (request.method !== 'POST') return new Response('POST only', { status: 405 });
    if (new URL(request.url).pathname === '/run') return Response.json(await runScenario(await request.json()));
    return createWebhookHandler({ secrets: bindings.MEDIAGEN_WEBHOOK_SECRET, onEvent: () => {} })(request);
  },
};
