// `pnpm demo`: the whole system on one machine with no account. Starts the local emulator and
// the studio (apps/next-sample) wired together: the emulator's account sends its webhooks to
// the studio's receiver, signed with the secret the studio is configured with.
//   pnpm demo           prints the URL to open; Ctrl-C stops both
//   pnpm demo --smoke   submits one image generation through the studio, waits for its webhook,
//                       prints the output URL and the credits charged, exits 0 (CI runs it)
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startEmulator } from '@mediagen/emulator';

const smoke = process.argv.includes('--smoke');
const app = fileURLToPath(new URL('../apps/next-sample/', import.meta.url));
const KEY = 'svc_live_emulator_demo';
const SECRET = 'whsec_emulator_demo';
const ACCOUNT = 'acct_demo';

if (!existsSync(join(app, '.next', 'BUILD_ID'))) {
  console.error(
    'The studio is not built: run `pnpm demo` from the repo root (it builds first), or `pnpm turbo run build --filter=next-sample...`.',
  );
  process.exit(1);
}

/** A port: the preferred one when it is free (interactive runs), else any free one. */
async function port(preferred) {
  const tryListen = (p) =>
    new Promise((resolve) => {
      const server = createServer();
      server.once('error', () => resolve(undefined));
      server.listen(p, '127.0.0.1', () => {
        const { port: got } = server.address();
        server.close(() => resolve(got));
      });
    });
  return (preferred && (await tryListen(preferred))) || (await tryListen(0));
}

// biome-ignore lint/suspicious/noUndeclaredEnvVars: the demo script runs outside turbo (only its build step is a turbo task)
const appPort = await port(smoke ? 0 : Number(process.env.PORT ?? 3000));
const studioUrl = `http://127.0.0.1:${appPort}`;
// http: webhook URLs are accepted by the emulator unless `requireHttpsWebhooks` (the real service takes HTTPS only).
const emulator = await startEmulator({
  port: smoke ? 0 : await port(4010),
  config: {
    timeScale: smoke ? 0.1 : 0.5,
    accounts: [
      {
        id: ACCOUNT,
        tier: 'pro',
        balance: 15_000,
        keys: [{ key: KEY }],
        webhooks: [{ url: `${studioUrl}/api/webhooks/mediagen`, secret: SECRET, enabled: true }],
      },
    ],
  },
});

const dataDir = smoke ? mkdtempSync(join(tmpdir(), 'mediagen-demo-')) : undefined;
const studio = spawn(
  process.execPath,
  [join(app, 'node_modules/next/dist/bin/next'), 'start', '--port', String(appPort), '--hostname', '127.0.0.1'],
  {
    cwd: app,
    env: {
      ...process.env,
      NEXT_TELEMETRY_DISABLED: '1',
      PORT: String(appPort),
      MEDIAGEN_API_KEY: KEY,
      MEDIAGEN_BASE_URL: emulator.url,
      MEDIAGEN_WEBHOOK_SECRET: SECRET,
      ...(dataDir ? { MEDIAGEN_SAMPLE_DB: join(dataDir, 'generations.db') } : {}),
    },
    stdio: smoke ? ['ignore', 'ignore', 'inherit'] : ['ignore', 'inherit', 'inherit'],
  },
);

let stopping = false;
async function stop(code) {
  if (stopping) return;
  stopping = true;
  studio.kill('SIGTERM');
  await emulator.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  process.exit(code);
}
studio.once('exit', (code) => {
  if (!stopping) {
    console.error(`the studio exited (code ${code})`);
    void stop(1);
  }
});
for (const signal of ['SIGINT', 'SIGTERM']) process.once(signal, () => void stop(0));

async function until(check, what, timeoutMs) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const value = await check();
      if (value) return value;
    } catch {
      // not yet
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

try {
  await until(async () => (await fetch(`${studioUrl}/api/credits`)).ok, 'the studio to start', 30_000);
  if (!smoke) {
    console.log(`\nMediaGen emulator  ${emulator.url}  (account ${ACCOUNT}, webhooks -> the studio)`);
    console.log(`MediaGen Studio    ${studioUrl}   <- open this\n\nCtrl-C stops both.`);
  } else {
    const submit = await fetch(`${studioUrl}/api/generations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': randomUUID() },
      body: JSON.stringify({ model: 'image-fast', prompt: 'a lighthouse at dusk, oil painting', aspect_ratio: '16:9', seed: 42 }),
    });
    const submitted = await submit.json();
    if (submit.status !== 202) throw new Error(`submit answered ${submit.status}: ${JSON.stringify(submitted)}`);
    console.log(`submitted ${submitted.generation_id} (${submitted.model}, ${submitted.credits_estimate} credits reserved)`);
    const done = await until(
      async () => {
        const { generations } = await (await fetch(`${studioUrl}/api/generations`)).json();
        const g = generations.find((x) => x.generation_id === submitted.generation_id);
        return g && g.status !== 'pending' && g.status !== 'processing' && g.source === 'webhook' ? g : undefined;
      },
      'the webhook',
      60_000,
    );
    if (done.status !== 'completed') throw new Error(`the generation ended ${done.status}: ${JSON.stringify(done.error)}`);
    const output = await fetch(done.output_url);
    if (!output.ok || !output.headers.get('content-type')?.startsWith('image/'))
      throw new Error(`the output link answered ${output.status}`);
    const [delivery] = (await (await fetch(`${emulator.url}/__emulator/deliveries?generation_id=${done.generation_id}`)).json()).deliveries;
    console.log(`completed via webhook (delivery ${delivery?.outcome}, HTTP ${delivery?.status})`);
    console.log(`output URL       ${done.output_url}`);
    console.log(`credits charged  ${done.credits_used}`);
    await stop(0);
  }
} catch (error) {
  console.error(`demo failed: ${error instanceof Error ? error.message : error}`);
  await stop(1);
}
