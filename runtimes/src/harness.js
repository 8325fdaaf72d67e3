/**
 * What one cell runs against, in the runner's own Node process: a fresh emulator (so faults a
 * cell injects touch no other cell) whose account sends its signed deliveries to a recorder.
 * The runtime under test reads the recorded delivery back, byte for byte, and verifies it: the
 * signature comes from the emulator, never from the SDK's own `signWebhook`.
 */
import { once } from 'node:events';
import { createServer } from 'node:http';
import { createServer as createNetServer } from 'node:net';
import { startEmulator } from '@mediagen/emulator';

const API_KEY = 'svc_live_runtime_matrix';
const WEBHOOK_SECRET = 'whsec_runtime_matrix';
/** How long a read of a delivery waits for it: generous, the machine may be loaded. */
const DELIVERY_WAIT_MS = 60_000;
const SIGNED_HEADERS = ['content-type', 'user-agent', 'x-service-signature', 'x-service-event', 'x-service-delivery-id'];

/**
 * @param {{ webhookUrls?: string[] }} [options] more endpoints the emulator delivers to (a framework's webhook route)
 * @returns {Promise<{ env: { baseUrl: string, apiKey: string, webhookSecret: string, captureUrl: string }, close(): Promise<void> }>}
 */
export async function startHarness({ webhookUrls = [] } = {}) {
  const recorder = await startRecorder();
  const emulator = await startEmulator({
    port: 0,
    config: {
      timeScale: 0.01,
      accounts: [
        {
          id: 'acct_runtime_matrix',
          tier: 'pro',
          balance: 10_000,
          keys: [{ key: API_KEY }],
          webhooks: [`${recorder.url}/hook`, ...webhookUrls].map((url) => ({ url, secret: WEBHOOK_SECRET })),
        },
      ],
    },
  });
  return {
    env: { baseUrl: emulator.url, apiKey: API_KEY, webhookSecret: WEBHOOK_SECRET, captureUrl: recorder.url },
    async close() {
      await emulator.close();
      await recorder.close();
    },
  };
}

/**
 * `POST /hook` records a delivery under its generation id (first one wins) and answers 200;
 * `GET /deliveries/:id` answers it as `{ body, headers }` once it has come, or 404 after the wait.
 */
async function startRecorder() {
  const deliveries = new Map();
  const waiting = new Map();
  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://recorder');
    if (req.method === 'POST' && url.pathname === '/hook') {
      const chunks = [];
      for await (const chunk of req) chunks.push(chunk);
      const body = Buffer.concat(chunks).toString('utf8');
      const id = JSON.parse(body).generation_id;
      const headers = Object.fromEntries(
        SIGNED_HEADERS.filter((h) => req.headers[h] !== undefined).map((h) => [h, String(req.headers[h])]),
      );
      if (!deliveries.has(id)) deliveries.set(id, { body, headers });
      for (const wake of waiting.get(id) ?? []) wake();
      waiting.delete(id);
      res.writeHead(200).end();
      return;
    }
    const match = /^\/deliveries\/([^/]+)$/.exec(url.pathname);
    if (req.method === 'GET' && match) {
      const id = decodeURIComponent(match[1]);
      if (!deliveries.has(id)) await arrival(waiting, id);
      const delivery = deliveries.get(id);
      res.writeHead(delivery ? 200 : 404, { 'content-type': 'application/json' }).end(JSON.stringify(delivery ?? { error: 'NOT_FOUND' }));
      return;
    }
    res.writeHead(404).end();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address();
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** Resolves when a delivery for `id` arrives, or after the wait. */
function arrival(waiting, id) {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, DELIVERY_WAIT_MS);
    const wake = () => {
      clearTimeout(timer);
      resolve();
    };
    waiting.set(id, [...(waiting.get(id) ?? []), wake]);
  });
}

/** A port free now, for a server that must be named before it starts (a webhook route the emulator is configured with). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createNetServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}
