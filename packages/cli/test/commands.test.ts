import type { RunningEmulator } from '@mediagen/emulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ACCOUNT, control, emulator, KEYS, runCli } from './helpers';

let emu: RunningEmulator;
beforeAll(async () => {
  emu = await emulator(0.01);
});
afterAll(() => emu?.close());

const run = (args: string[], options: Parameters<typeof runCli>[1] = {}) => runCli(args, { baseUrl: emu.url, ...options });

describe('help and usage', () => {
  it.each(['models', 'estimate', 'generate', 'wait', 'get', 'credits', 'emulator', 'types'])('%s --help', async (command) => {
    const { code, stdout } = await run([command, '--help']);
    expect(code).toBe(0);
    expect(stdout).toContain(`Usage: mediagen ${command}`);
  });

  it('lists every command and the exit codes', async () => {
    const { code, stdout } = await run(['--help']);
    expect(code).toBe(0);
    for (const command of ['models', 'estimate', 'generate', 'wait', 'get', 'credits', 'emulator', 'types'])
      expect(stdout).toContain(command);
    expect(stdout).toMatch(/Exit codes: 0 ok/);
  });

  it('exits 2 on an unknown command, an unknown flag, a missing argument or a missing --model', async () => {
    for (const args of [['bogus'], ['models', '--bogus'], ['get'], ['generate', '--prompt', 'x'], ['models', '--max-retries', 'x']]) {
      const { code, stderr } = await run(args);
      expect(code, args.join(' ')).toBe(2);
      expect(stderr.trim().split('\n').length, stderr).toBeLessThanOrEqual(2);
    }
  });
});

describe('models', () => {
  it("prints the account's models as a table with kind, modes and price", async () => {
    const { code, stdout } = await run(['models']);
    expect(code).toBe(0);
    const lines = stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^SLUG\s+KIND\s+MODES\s+CREDITS/);
    const row = lines.find((l) => l.startsWith('image-pro '));
    expect(row).toMatch(/image-pro\s+image\s+text-to-image, image-editing\s+10 \(10-46\)/);
    expect(lines).toHaveLength(11);
    // The one model whose inputs the API cannot shape says so, and only it.
    expect(lines.filter((l) => l.includes('not available through the API')).map((l) => l.split(/\s+/)[0])).toEqual(['lipsync-multi']);
  });

  it('--json is the list as the service sent it', async () => {
    const { code, stdout } = await run(['models', '--json']);
    expect(code).toBe(0);
    const list = JSON.parse(stdout);
    expect(list.tier).toBe('pro');
    expect(list.models.map((m: { slug: string }) => m.slug)).toContain('video-standard');
  });

  it("shows only the account's allowlist", async () => {
    const { stdout } = await run(['models', '--json'], { key: KEYS.narrow });
    expect(JSON.parse(stdout).models.map((m: { slug: string }) => m.slug)).toEqual(['image-fast', 'video-standard']);
  });
});

describe('credits', () => {
  it('prints the wallet; --json parses and agrees with the account', async () => {
    const text = await run(['credits']);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/balance\s+[\d,]+/);
    const { code, stdout } = await run(['credits', '--json']);
    expect(code).toBe(0);
    const summary = JSON.parse(stdout);
    const account = await control(emu.url, `/accounts/${ACCOUNT}`);
    expect(summary.balance).toBe(account.balance);
    expect(summary.tier).toBe('pro');
  });
});

describe('estimate', () => {
  it('prices a request exactly and charges nothing', async () => {
    const before = (await control(emu.url, `/accounts/${ACCOUNT}`)).balance;
    const args = ['estimate', '--model', 'image-pro', '--prompt', 'a leaf', '--param', 'quality=high'];
    const text = await run([...args, '--param', 'reference_images=https://example.com/a.png']);
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/image-pro: 23 credits \(estimate: nothing charged\)/);
    const { code, stdout } = await run([...args, '--json']);
    expect(code).toBe(0);
    expect(JSON.parse(stdout).credits_estimate).toBe(20);
    expect((await control(emu.url, `/accounts/${ACCOUNT}`)).balance).toBe(before);
  });

  it('parses --param values by the schema: numbers, booleans, arrays', async () => {
    const video = await run([
      'estimate',
      '--model',
      'video-standard',
      '--prompt',
      'x',
      '--param',
      'duration=10',
      '--param',
      'audio=false',
      '--json',
    ]);
    expect(video.code).toBe(0);
    expect(JSON.parse(video.stdout).credits_estimate).toBe(100);
    const refs = ['reference_images=https://example.com/a.png', 'reference_images=https://example.com/b.png'];
    const pro = await run(['estimate', '--model', 'image-pro', '--prompt', 'x', ...refs.flatMap((r) => ['--param', r]), '--json']);
    expect(JSON.parse(pro.stdout).credits_estimate).toBe(16);
  });
});

describe('errors: one line with the next hint, and an exit code per kind', () => {
  it('params (5): every issue at once, with the allowed values, and nothing sent', async () => {
    const before = await control(emu.url, `/accounts/${ACCOUNT}`);
    const { code, stderr, stdout } = await run([
      'generate',
      '--model',
      'image-pro',
      '--prompt',
      '',
      '--param',
      'size=1234x777',
      '--param',
      'duration=5',
      '--param',
      'quality=best',
      '--param',
      'number_results=lots',
      '--param',
      'colour=red',
    ]);
    expect(code).toBe(5);
    expect(stdout).toBe('');
    expect(stderr).toMatch(/6 invalid params for image-pro/);
    // Each issue on its own line: the field, what is allowed, what was given.
    expect(stderr).toMatch(/^ {2}size: .*one of: 1024x1024, 1536x1024.*\(got "1234x777"\)$/m);
    expect(stderr).toMatch(/^ {2}quality: .*one of: standard, high, ultra.*\(got "best"\)$/m);
    expect(stderr).toMatch(/^ {2}duration: .*image-pro \(it takes: prompt, size, quality/m);
    expect(stderr).toMatch(/^ {2}number_results: .*lots.* expected a whole number from 1 to 4$/m);
    expect(stderr).toMatch(/^ {2}colour: image-pro has no param "colour"/m);
    expect(stderr).toMatch(/^ {2}prompt: /m);
    expect((await control(emu.url, `/accounts/${ACCOUNT}`)).ledger.length).toBe(before.ledger.length);
  });

  it('params (5): a model not on the list names the ones that are', async () => {
    const { code, stderr } = await run(['estimate', '--model', 'image-pro', '--prompt', 'x'], { key: KEYS.narrow });
    expect(code).toBe(5);
    expect(stderr).toMatch(/"image-pro" is not in this account's model list.*image-fast, video-standard/);
  });

  it('auth (3): a wrong key, a revoked key, a free tier, no key at all', async () => {
    for (const key of ['svc_live_nobody_0123456789abcdef', KEYS.revoked, KEYS.free, null]) {
      const { code, stderr } = await run(['credits'], { key });
      expect(code, String(key)).toBe(3);
      expect(stderr.trim().split('\n')).toHaveLength(1);
      if (key !== null) expect(stderr).toMatch(/KEY_INVALID|KEY_REVOKED|TIER_LOCKED/);
      expect(stderr).toMatch(/→ /);
    }
  });

  it('credits (4): 402 with the balance', async () => {
    const { code, stderr } = await run(['generate', '--model', 'image-fast', '--prompt', 'x'], { key: KEYS.poor });
    expect(code).toBe(4);
    expect(stderr).toMatch(/INSUFFICIENT_CREDITS/);
  });

  it('not found (8)', async () => {
    const { code, stderr } = await run(['get', '00000000-0000-4000-8000-000000000000']);
    expect(code).toBe(8);
    expect(stderr).toMatch(/NOT_FOUND/);
  });

  it("a service answer's escape sequences do not reach the terminal: its message is shown, defused", async () => {
    const message = 'boom \x1b]0;pwned\x07 \x1b[2J\x1b[1;1H\rforged line';
    await control(emu.url, '/faults', { method: 'POST', body: JSON.stringify({ endpoint: 'credits', status: 500, count: 1, message }) });
    const { code, stderr } = await run(['credits', '--max-retries', '0']);
    expect(code).toBe(6);
    // Core quotes a service's message as one inert line (each run of controls is one space);
    // the CLI's own filter (terminal-text) is for what reaches it otherwise (statuses, names).
    expect(stderr).toContain('boom ]0;pwned [2J [1;1H forged line');
    // Not on a terminal, so no colour either: no escape and no carriage return at all.
    expect(stderr).not.toContain('\x1b');
    expect(stderr).not.toContain('\r');
  });

  it('service (6): a 500 that outlasts the retries, and no service at all', async () => {
    await control(emu.url, '/faults', { method: 'POST', body: JSON.stringify({ endpoint: 'credits', status: 500, count: 1 }) });
    const failed = await run(['credits', '--max-retries', '0']);
    expect(failed.code).toBe(6);
    expect(failed.stderr).toMatch(/INTERNAL_ERROR.*→ .+\[req_/);
    const closed = await runCli(['credits', '--max-retries', '0'], { baseUrl: 'http://127.0.0.1:1' });
    expect(closed.code).toBe(6);
    expect(closed.stderr).toMatch(/CONNECTION_ERROR\) → Check --base-url or MEDIAGEN_BASE_URL/);
  });

  it("MEDIAGEN_LOG=debug: the client's request log goes to stderr, --json stays parseable", async () => {
    const { code, stdout, stderr } = await run(['credits', '--json'], { env: { MEDIAGEN_LOG: 'debug' } });
    expect(code).toBe(0);
    expect(JSON.parse(stdout).tier).toBe('pro');
    expect(stderr).toMatch(/\[mediagen\].*GET .*\/api\/v1\/credits/);
  });

  it('never prints the key, even one passed by flag or pasted into the wrong flag', async () => {
    // runCli checks every output for every test key; these put the key where it could echo.
    const flag = await runCli(['credits', '--api-key', KEYS.main, '--base-url', emu.url], { key: null });
    expect(flag.code).toBe(0);
    const pasted = await run(['estimate', '--model', 'image-fast', '--prompt', 'x', '--param', KEYS.main]);
    expect(pasted.code).toBe(5);
    expect(pasted.stderr).toContain('[redacted]');
  });
});
