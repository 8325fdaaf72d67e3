/**
 * The Hono app served by the runtime's own server, as Hono's docs say for each: `Deno.serve` and
 * `Bun.serve` take `app.fetch`; Node takes it through `@hono/node-server`.
 */
import { createHonoApp } from './hono-app.js';

/** Starts the app on 127.0.0.1:`port`; resolves once it listens. */
export async function serveHono(port, env) {
  const app = createHonoApp(env);
  if (globalThis.Deno) {
    await new Promise((resolve) => globalThis.Deno.serve({ port, hostname: '127.0.0.1', onListen: resolve }, app.fetch));
    return;
  }
  if (globalThis.Bun) {
    globalThis.Bun.serve({ port, hostname: '127.0.0.1', fetch: app.fetch });
    return;
  }
  const { serve } = await import('@hono/node-server');
  await new Promise((resolve) => serve({ fetch: app.fetch, port, hostname: '127.0.0.1' }, resolve));
}
