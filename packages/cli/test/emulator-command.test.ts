import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli, spawnCli, tempDir, testConfig, waitForOutput } from './helpers';

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
