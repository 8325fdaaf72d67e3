/**
 * A completed generation whose output link names another host (a compromised service, a forged
 * webhook): `generateImage` fails typed and never sends a request there. The provider reads
 * outputs through `client.generations.download`, which fetches only links on the client's
 * base address. Two real servers on free ports: the service and the foreign host.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { InvalidArgumentError } from '@ai-sdk/provider';
import { type RunningEmulator, startEmulator } from '@mediagen/emulator';
import { generateImage } from 'ai';
import { afterEach, expect, it } from 'vitest';
import { createMediaGen } from '../src/index.js';

const KEY = 'svc_live_foreign_output_link';
let emu: RunningEmulator | undefined;
const servers: Server[] = [];

afterEach(async () => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    await new Promise((resolve) => s.close(resolve));
  }
  await emu?.close();
  emu = undefined;
});

async function listen(handler: Parameters<typeof createServer>[1]): Promise<{ server: Server; url: string }> {
  const server = createServer(handler);
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

it('generateImage with an output link on another host: a typed error, and the other host gets no request', async () => {
  let foreignHits = 0;
  const foreign = await listen((_req, res) => {
    foreignHits++;
    res.writeHead(200, { 'content-type': 'image/png' });
    res.end(Buffer.from([0x89, 0x50, 0x4e, 0x47]));
  });
  emu = await startEmulator({
    port: 0,
    config: { timeScale: 0.001, accounts: [{ id: 'acct_foreign', tier: 'pro', balance: 10_000, keys: [{ key: KEY }] }] },
  });
  const upstream = emu.url;
  // The service: the emulator, with every completed status read's links moved to the foreign host.
  const service = await listen(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers)) {
      if (typeof value === 'string' && !['host', 'content-length', 'connection'].includes(name)) headers[name] = value;
    }
    const answer = await fetch(upstream + (req.url ?? '/'), {
      method: req.method ?? 'GET',
      headers,
      ...(chunks.length > 0 ? { body: Buffer.concat(chunks) } : {}),
    });
    const body = (await answer.text()).split(upstream).join(foreign.url);
    res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
    res.end(body);
  });

  const model = createMediaGen({ apiKey: KEY, baseUrl: service.url }).image('image-fast');
  const e = await generateImage({ model, prompt: 'x', providerOptions: { mediagen: { pollIntervalMs: 10 } } }).catch((x: unknown) => x);
  // core's ConfigurationError, as the provider maps every one (the fix is the client's baseUrl,
  // or a service that signs links on its own address), naming the completed generation.
  expect(InvalidArgumentError.isInstance(e), String(e)).toBe(true);
  expect((e as InvalidArgumentError).message).toBe("Output link not on the service's address.");
  const cause = (e as InvalidArgumentError).cause as { code: string; generationId: string };
  expect(cause.code).toBe('CONFIGURATION_ERROR');
  expect(cause.generationId).toMatch(/^[0-9a-f-]{36}$/);
  expect(foreignHits).toBe(0);
});
