import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Stack, startStack } from './support/stack';

/**
 * What one browser's cookie can make the studio hold (next start + a real emulator): streams per
 * user, and which cookie values name a user at all. A `[[hold]]` prompt keeps the generation
 * `processing` until the test releases it, so its streams stay open as long as the test needs.
 */
describe('the studio bounds one user (next start + a real emulator)', () => {
  let stack: Stack;
  beforeAll(async () => void (stack = await startStack()));
  afterAll(async () => {
    await stack?.emulator.faults.release(1_000);
    await stack?.close();
  });

  /** A new browser: its cookie as the studio set it, and its user id. */
  const browser = async () => {
    const cookie = (await fetch(`${stack.origin}/api/credits`)).headers.get('set-cookie')!.split(';')[0]!;
    return { cookie, id: cookie.slice(cookie.indexOf('=') + 1) };
  };
  const held = async (cookie: string) => {
    const before = (await stack.emulator.faults.held()).length;
    const res = await fetch(`${stack.origin}/api/generations`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', cookie },
      body: JSON.stringify({ model: 'image-fast', prompt: '[[hold]] bounds' }),
    });
    expect(res.status).toBe(202);
    await stack.emulator.faults.held({ min: before + 1 });
    return ((await res.json()) as { generation_id: string }).generation_id;
  };
  /** Opens a stream on its own connection: its status, its body's text so far, and `cut()`. */
  const open = (path: string, cookie: string) =>
    new Promise<{ status: number; body: () => Promise<string>; cut: () => void }>((resolve, reject) => {
      const req = request(`${stack.origin}${path}`, { agent: false, headers: { cookie, accept: 'text/event-stream' } }, (res) => {
        res.on('error', () => {});
        const chunks: Buffer[] = [];
        const ended = new Promise<string>((done) => res.on('end', () => done(Buffer.concat(chunks).toString())));
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        resolve({ status: res.statusCode!, body: () => ended, cut: () => req.destroy() });
      });
      req.on('error', reject);
      req.end();
    });

  it('answers the 9th open stream of one cookie 429 RATE_LIMIT (a JSON error body); another user still streams', async () => {
    const ada = await browser();
    const id = await held(ada.cookie);
    const streams = [];
    for (let i = 0; i < 8; i++) streams.push(await open(`/api/generations/${id}/events`, ada.cookie));
    expect(streams.map((s) => s.status)).toEqual(Array(8).fill(200));
    const refused = await open(`/api/generations/${id}/events`, ada.cookie);
    expect(refused.status).toBe(429);
    expect(JSON.parse(await refused.body())).toEqual({
      error: 'RATE_LIMIT',
      message: expect.any(String),
      next: expect.any(String),
      request_id: null,
    });
    const bob = await browser();
    const own = await open('/api/generations/events', bob.cookie);
    expect(own.status).toBe(200);
    for (const s of [...streams, own]) s.cut();
  });

  it('takes a user cookie only when its value is exactly the id: `<id>=x` is a new user, as on Express', async () => {
    const ada = await browser();
    const id = await held(ada.cookie);
    for (const forged of [`mediagen_user=${ada.id}=x`, `mediagen_user=${ada.id}x`, `mediagen_user="${ada.id}"`]) {
      const res = await fetch(`${stack.origin}/api/generations`, { headers: { cookie: forged } });
      expect(res.status, forged).toBe(200);
      // Refused: the studio mints a new user, whose list is empty.
      expect(res.headers.get('set-cookie'), forged).toMatch(/^mediagen_user=[0-9a-f-]{36};/);
      expect(res.headers.get('set-cookie')).not.toContain(ada.id);
      const { generations } = (await res.json()) as { generations: { generation_id: string }[] };
      expect(generations.map((g) => g.generation_id)).not.toContain(id);
      expect((await fetch(`${stack.origin}/api/generations/${id}`, { headers: { cookie: forged } })).status).toBe(404);
    }
    // The exact id is that user.
    const own = (await (await fetch(`${stack.origin}/api/generations`, { headers: { cookie: ada.cookie } })).json()) as {
      generations: { generation_id: string }[];
    };
    expect(own.generations.map((g) => g.generation_id)).toContain(id);
  });
});
