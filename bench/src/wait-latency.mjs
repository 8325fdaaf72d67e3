// Row: time from the service completing a generation (its completed_at) to `wait()` resolving,
// with a webhook receiver publishing to `client.events` (the wait races the webhook) and
// without one (polling alone, at the spec's 2 s image interval). p50 and p95 over generations
// run in parallel against the emulator in this process (real-time polling interval; the render
// is scaled so a run lasts seconds, not minutes).
import { createServer } from 'node:http';
import { MediaGenClient } from '@mediagen/core';
import { createWebhookHandler } from '@mediagen/core/server';
import { startEmulator } from '@mediagen/emulator';

const TARGET_P50_MS = 250;
const SECRET = 'whsec_bench_wait';

function percentile(sorted, p) {
  return sorted.length === 0 ? Number.NaN : sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
}

/** A receiver on a free port: verifies each delivery and publishes it to the client's events (installed here). */
async function startReceiver(client) {
  const handle = createWebhookHandler({ secrets: SECRET, client, onEvent: () => {} });
  const server = createServer(async (req, res) => {
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const response = await handle(
      new Request(`http://receiver${req.url}`, { method: 'POST', headers: req.headers, body: Buffer.concat(chunks) }),
    );
    res.writeHead(response.status, { 'content-type': 'application/json' });
    res.end(await response.text());
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${server.address().port}/webhooks`, close: () => new Promise((r) => server.close(r)) };
}

async function side(withReceiver, n) {
  const client = new MediaGenClient({ apiKey: 'svc_live_bench_wait', baseUrl: 'http://127.0.0.1:1' });
  const receiver = withReceiver ? await startReceiver(client) : undefined;
  const emulator = await startEmulator({
    port: 0,
    config: {
      timeScale: 0.2,
      accounts: [
        {
          id: 'acct_wait',
          tier: 'ultimate',
          balance: 50_000,
          keys: [{ key: 'svc_live_bench_wait' }],
          webhooks: receiver ? [{ url: receiver.url, secret: SECRET, enabled: true }] : [],
        },
      ],
    },
  });
  try {
    const live = new MediaGenClient({ apiKey: 'svc_live_bench_wait', baseUrl: emulator.url, events: client.events });
    const delays = await Promise.all(
      Array.from({ length: n }, async (_, i) => {
        const { generation_id } = await live.generations.create({ model: 'image-fast', prompt: `wait latency ${i}` });
        const g = await live.generations.wait(generation_id); // default interval: the spec's 2 s
        return Date.now() - Date.parse(g.completed_at);
      }),
    );
    return delays.sort((a, b) => a - b);
  } finally {
    await emulator.close();
    await receiver?.close();
  }
}

export async function run({ quick }) {
  const n = quick ? 10 : 20;
  const withReceiver = await side(true, n);
  const pollingOnly = await side(false, n);
  const p50 = percentile(withReceiver, 0.5);
  const fmtMs = (xs) => `p50 ${Math.round(percentile(xs, 0.5))} ms, p95 ${Math.round(percentile(xs, 0.95))} ms`;
  return {
    rows: [
      {
        id: 'wait-latency',
        what: `Completion to wait() resolving, ${n} image generations in parallel`,
        ours: `with a receiver: ${fmtMs(withReceiver)}; polling alone: ${fmtMs(pollingOnly)}`,
        peers: {},
        target: `with a receiver p50 < ${TARGET_P50_MS} ms`,
        status: p50 < TARGET_P50_MS ? 'pass' : 'miss',
      },
    ],
    raw: { n, withReceiver, pollingOnly },
  };
}
