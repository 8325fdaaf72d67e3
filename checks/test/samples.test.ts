import { existsSync } from 'node:fs';
import { basename, join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { CREATE_PACKAGE, createFromTarball, useTarballs } from '../src/create-app';
import { CHECK_KEY, CHECK_SECRET, freePort, type InstalledEmulator, startInstalledEmulator, waitFor } from '../src/emulator';
import { npmInstall } from '../src/npm';
import { run, type Service, startService } from '../src/run';
import { sampleApps } from '../src/workspace';

// Each apps/*-sample written out as a user gets it, `npm create mediagen <dir> -- --template <t>`
// run from create-mediagen's packed tarball in a clean folder outside the workspace; its
// published @mediagen/* ranges then pointed at the packed tarballs (nothing is on the registry
// yet), installed with npm, built, started with `npm start` against the emulator (installed the
// same way), then one generation submitted through the app and seen completed through the webhook.
const tarballs = inject('tarballs');
const scratch = inject('scratch');
const running: { stop: () => Promise<void> }[] = [];
afterAll(async () => {
  await Promise.all(running.map((service) => service.stop()));
});

interface Known {
  generation_id: string;
  status: string;
}

const templates = sampleApps().map(({ dir }) => basename(dir).replace(/-sample$/, ''));

describe.each(templates)('npm create mediagen -- --template %s', (name) => {
  it('installs with npm, builds, starts with npm start and completes a generation through the webhook', async () => {
    const dest = await createFromTarball(tarballs[CREATE_PACKAGE]!, join(scratch, 'samples'), `my-${name}-app`, name);
    const ranges = useTarballs(dest, tarballs);
    expect(Object.keys(ranges), 'the app depends on the published @mediagen packages').toContain('@mediagen/core');
    // Nothing of the monorepo comes along: its configs (extending the root's) and its local state.
    for (const file of ['turbo.json', 'biome.json', 'data', 'test-output', 'node_modules']) {
      expect(existsSync(join(dest, file)), file).toBe(false);
    }
    // npm drops .gitignore from a tarball; create-mediagen carries it under another name.
    expect(existsSync(join(dest, '.gitignore')), '.gitignore').toBe(true);
    await npmInstall(dest);
    await run('npm', ['run', 'build'], { cwd: dest, timeoutMs: 180_000, env: { NEXT_TELEMETRY_DISABLED: '1' } });
    expect(
      existsSync(join(dest, 'node_modules/.bin/mediagen-emulator')),
      'the sample declares @mediagen/emulator (its devDependency)',
    ).toBe(true);

    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    const emulator: InstalledEmulator = await startInstalledEmulator(dest, `${origin}/api/webhooks/mediagen`);
    running.push({ stop: emulator.close });
    const app: Service = startService('npm', ['start'], {
      cwd: dest,
      env: {
        PORT: String(port),
        MEDIAGEN_API_KEY: CHECK_KEY,
        MEDIAGEN_BASE_URL: emulator.url,
        MEDIAGEN_WEBHOOK_SECRET: CHECK_SECRET,
        NEXT_TELEMETRY_DISABLED: '1',
      },
    });
    running.push(app);
    await waitFor(`${origin}/api/generations`, 60_000, app);

    // The samples answer only the browser's user, named by a cookie set on first contact: keep it, as a browser does.
    let cookie: string | undefined;
    const asUser = async (url: string, init: RequestInit = {}) => {
      const res = await fetch(url, { ...init, headers: { ...(init.headers as Record<string, string>), ...(cookie ? { cookie } : {}) } });
      cookie = res.headers.get('set-cookie')?.split(';')[0] ?? cookie;
      return res;
    };
    const submit = await asUser(`${origin}/api/generations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'idempotency-key': crypto.randomUUID() },
      body: JSON.stringify({ model: 'image-fast', prompt: `a fox, from the copied ${name}` }),
    });
    const submitted = (await submit.json()) as { generation_id?: string };
    expect(submit.status, JSON.stringify(submitted)).toBe(202);
    const id = submitted.generation_id!;

    let known: Known | undefined;
    const deadline = Date.now() + 60_000;
    while (known?.status !== 'completed' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      const list = (await (await asUser(`${origin}/api/generations`)).json()) as { generations: Known[] };
      known = list.generations.find((g) => g.generation_id === id);
    }
    expect(known?.status, app.output()).toBe('completed');

    // Completed through the webhook: the emulator delivered it and the app answered 2xx.
    const log = (await (await fetch(`${emulator.url}/__emulator/deliveries?generation_id=${id}`)).json()) as unknown;
    const rows = (Array.isArray(log) ? log : ((log as { deliveries?: unknown[] }).deliveries ?? [])) as {
      outcome: string;
      status: number | null;
    }[];
    expect(
      rows.some((row) => row.outcome === 'delivered' && row.status !== null && row.status < 300),
      JSON.stringify(rows),
    ).toBe(true);
  });
});
