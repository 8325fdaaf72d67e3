/**
 * Core's webhook receiver served over HTTP by the runtime's own server, so the emulator's
 * deliveries cross a real socket into it: `Deno.serve` and `Bun.serve` hand it their native
 * `Request`; Node goes through `@mediagen/core/node` (node:http in, Web `Request` out).
 */
import { createWebhookHandler } from '@mediagen/core/server';

/** Starts the receiver on 127.0.0.1:`port`; resolves once it listens. */
export async function serveReceiver(port, secret) {
  const options = { secrets: secret, onEvent: () => {} };
  if (globalThis.Deno) {
    const handler = createWebhookHandler(options);
    await new Promise((resolve) => globalThis.Deno.serve({ port, hostname: '127.0.0.1', onListen: resolve }, handler));
    return;
  }
  if (globalThis.Bun) {
    globalThis.Bun.serve({ port, hostname: '127.0.0.1', fetch: createWebhookHandler(options) });
    return;
  }
  const { createServer } = await import('node:http');
  const { createNodeHandler } = await import('@mediagen/core/node');
  const server = createServer(createNodeHandler(createWebhookHandler(options)));
  await new Promise((resolve) => server.listen(port, '127.0.0.1', resolve));
}
