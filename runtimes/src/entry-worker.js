/**
 * The scenario as a Cloudflare Worker module, run by workerd with no `nodejs_compat` flag, as a
 * plain Worker: a POST with the cell's environment as JSON answers the checks' results.
 */
import { runScenario } from './scenario.js';

export default {
  async fetch(request) {
    if (request.method !== 'POST') return new Response('POST the environment as JSON', { status: 405 });
    return Response.json(await runScenario(await request.json()));
  },
};
