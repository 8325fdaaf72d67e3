/**
 * The Hono app as a Cloudflare Worker module: its environment from the Worker's `MATRIX_ENV`
 * binding (JSON), made per request since a Worker has no process to start it in.
 */
import { createHonoApp } from './hono-app.js';

export default {
  fetch(request, bindings, ctx) {
    return createHonoApp(JSON.parse(bindings.MATRIX_ENV)).fetch(request, bindings, ctx);
  },
};
