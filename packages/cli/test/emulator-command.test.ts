import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { MediaGenClient } from '@mediagen/core';
import { describe, expect, it } from 'vitest';
import { KEYS, runCli, spawnCli, tempDir, testConfig, waitForOutput } from './helpers';

describe('mediagen emulator', () => {
  it('serves the config given, answers the other commands, and stops on Ctrl-C', async () => {
    const config = join(await tempDir('emu'), 'emulator.json');
    await writeFile(config, JSON.stringify(testConfig(0.01)));
    const { child, done } = spawnCli(['emulator', '--port', '0', '--config', config], { key: null });
    const url = await waitForOutput(child, /listening on (http:\/\/127\.0\.0\.1:\d+)/);
    expect((await fetch(`${url}/__emulator/health`)).status).toBe(200);
    const credits = await runCli(['credits', '--json'], { baseUrl: url });
    expect(credits.code).toBe(0);
    expect(JSON.parse(credits.stdout).balance).toBe(15_000);
    child.kill('SIGINT');
    const { code, stderr } = await done;
    expect(code).toBe(0);
    expect(stderr).toContain(`export MEDIAGEN_BASE_URL=${url}`);
    // With a config the keys are the user's own: no key hint.
    expect(stderr).not.toContain('MEDIAGEN_API_KEY');
  });

  it('takes --public-url as mediagen-emulator does: output links name it (one entry point, one set of flags)', async () => {
    const config = join(await tempDir('emu-public'), 'emulator.json');
    await writeFile(config, JSON.stringify(testConfig(0.001)));
    const { child, done } = spawnCli(['emulator', '--port', '0', '--config', config, '--public-url', 'http://media.example:9999'], {
      key: null,
    });
    const url = await waitForOutput(child, /listening on (http:\/\/127\.0\.0\.1:\d+)/);
    try {
      const client = new MediaGenClient({ apiKey: KEYS.main, baseUrl: url, maxRetries: 0 });
      const { generation_id: id } = await client.generations.create({ model: 'image-fast', prompt: 'x' });
      const done = await client.generations.wait(id, { intervalMs: 50 });
      expect(done.status).toBe('completed');
      expect(done.output_url).toMatch(/^http:\/\/media\.example:9999\/api\/v1\/output\//);
    } finally {
      child.kill('SIGINT');
    }
    const { stderr } = await done;
    expect(stderr).toContain('export MEDIAGEN_BASE_URL=http://media.example:9999');
  });

  it('exits 2 on a bad config or a bad port', async () => {
    const config = join(await tempDir('emu-bad'), 'emulator.json');
    await writeFile(config, JSON.stringify({ accounts: [{ id: 'a', tier: 'gold', keys: [] }] }));
    const bad = await runCli(['emulator', '--port', '0', '--config', config], { key: null });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/Invalid emulator config/);
    const port = await runCli(['emulator', '--port', 'eighty'], { key: null });
    expect(port.code).toBe(2);
  });
});
