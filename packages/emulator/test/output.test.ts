import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readPng, readWebm } from './decode.js';
import { type Emu, emulator, expectErrorShape } from './helpers.js';

let emu: Emu;
beforeAll(async () => {
  emu = await emulator();
});
afterAll(() => emu.close());

const run = async (body: Record<string, unknown>) => {
  const s = await emu.submit(body);
  expect(s.status, JSON.stringify(s.body)).toBe(202);
  return emu.wait(s.body.generation_id);
};

const LINK = /^http:\/\/127\.0\.0\.1:\d+\/api\/v1\/output\/([0-9a-f-]{36})\/(\d+)\/([\w-]+)\/(\d+)\/([\w.-]+)$/;

describe('signed output links', () => {
  it('shape, 3-day validity, no Authorization needed, one link per result', async () => {
    const { body: done } = await run({ model: 'image-fast', prompt: 'harbour', number_results: 2, seed: 5 });
    // A read signs its links 3 days from the moment it is answered: bracketed by the emulator's
    // clock just before and just after, however long the read takes on a loaded machine.
    const before = Date.parse((await emu.control('GET', '/clock')).body.now);
    const g = await emu.get(done.generation_id);
    const after = Date.parse((await emu.control('GET', '/clock')).body.now);
    expect(g.body.status).toBe('completed');
    expect(g.body.output_urls).toHaveLength(2);
    expect(g.body.output_url).toBe(g.body.output_urls[0]);
    const m = LINK.exec(g.body.output_url) as RegExpExecArray;
    expect(m).not.toBeNull();
    expect(m[1]).toBe(g.body.generation_id);
    const exp = Number(m[2]);
    expect(exp).toBeGreaterThanOrEqual(Math.floor((before + 3 * 86_400_000) / 1000));
    expect(exp).toBeLessThanOrEqual(Math.floor((after + 3 * 86_400_000) / 1000));
    expect(m[4]).toBe('0');
    expect(m[5]).toBe('image-fast-1.png');
    const file = await emu.fetchRaw(g.body.output_url);
    expect(file.status).toBe(200);
    expect(file.headers.get('content-type')).toBe('image/png');
    expect(file.headers.get('x-request-id')).toMatch(/^req_/);
    const second = await emu.fetchRaw(g.body.output_urls[1]);
    expect(second.status).toBe(200);
    expect(Buffer.compare(file.raw, second.raw)).not.toBe(0);
  });

  it('a bad signature is 403 LINK_INVALID; an altered index or id too', async () => {
    const g = await run({ model: 'image-fast', prompt: 'x', seed: 1 });
    const url: string = g.body.output_url;
    const [, id, exp, sig] = LINK.exec(url) as RegExpExecArray;
    const tampered = url.replace(`/${sig}/`, `/${(sig as string).slice(0, -2)}xx/`);
    for (const u of [
      tampered,
      url.replace(`/${exp}/`, `/${Number(exp) + 10}/`),
      url.replace('/0/image-fast-1.png', '/1/image-fast-2.png'),
    ]) {
      const r = await emu.fetchRaw(u);
      expect(r.status).toBe(403);
      expect(r.body.error).toBe('LINK_INVALID');
      expectErrorShape(r);
    }
    expect(id).toBe(g.body.generation_id);
  });

  it('expired after 3 days on the emulator clock: 410 LINK_EXPIRED; polling again gives a fresh link', async () => {
    const g = await run({ model: 'image-fast', prompt: 'x', seed: 2 });
    await emu.control('POST', '/clock', { advanceMs: 3 * 86_400_000 + 2000 });
    const r = await emu.fetchRaw(g.body.output_url);
    expect(r.status).toBe(410);
    expect(r.body.error).toBe('LINK_EXPIRED');
    expectErrorShape(r);
    const again = await emu.get(g.body.generation_id);
    expect(again.body.output_url).not.toBe(g.body.output_url);
    expect((await emu.fetchRaw(again.body.output_url)).status).toBe(200);
    await emu.control('POST', '/clock', { advanceMs: 1500 });
    const third = await emu.get(g.body.generation_id);
    expect(third.body.output_url).not.toBe(again.body.output_url);
  });

  it('failed generations have no links; unknown ids are 404', async () => {
    const g = await run({ model: 'image-fast', prompt: 'x [[flag]]' });
    expect(g.body.output_url).toBeNull();
    const r = await emu.get('0b3c5f8e-6a52-4b43-9a51-3a8f0d2c1e77');
    expect(r.status).toBe(404);
    expect(r.body.error).toBe('NOT_FOUND');
    expectErrorShape(r);
  });
});

describe('real media', () => {
  it('image: a PNG of the requested size, a picture not a blank, deterministic per seed+params', async () => {
    const a = await run({ model: 'image-fast', prompt: 'a fox', aspect_ratio: '16:9', seed: 77 });
    const b = await run({ model: 'image-fast', prompt: 'a fox', aspect_ratio: '16:9', seed: 77 });
    const c = await run({ model: 'image-fast', prompt: 'a fox', aspect_ratio: '16:9', seed: 78 });
    const fa = (await emu.fetchRaw(a.body.output_url)).raw;
    const fb = (await emu.fetchRaw(b.body.output_url)).raw;
    const fc = (await emu.fetchRaw(c.body.output_url)).raw;
    expect(fa.equals(fb)).toBe(true);
    expect(fa.equals(fc)).toBe(false);
    const png = readPng(fa);
    expect([png.width, png.height]).toEqual([1344, 768]);
    expect(png.colours).toBe(256);
    expect(new Set(png.pixels).size).toBeGreaterThan(60);
    const pro = await run({ model: 'image-pro', prompt: 'x', size: '1536x1024' });
    const pp = readPng((await emu.fetchRaw(pro.body.output_url)).raw);
    expect([pp.width, pp.height]).toEqual([1536, 1024]);
    const legacy = await run({ model: 'legacy-image', prompt: 'x' });
    expect(readPng((await emu.fetchRaw(legacy.body.output_url)).raw).width).toBe(512);
  });

  it('determinism holds across emulator processes (the link secret differs, the bytes do not)', async () => {
    const other = await emulator();
    try {
      const body = { model: 'image-pro', prompt: 'same', quality: 'high', size: '1536x1024', seed: 4242 };
      const a = await run(body);
      const sb = await other.submit(body);
      const b = await other.wait(sb.body.generation_id);
      expect(a.body.output_url.split('/output/')[1]).not.toBe(b.body.output_url.split('/output/')[1]);
      const fa = (await emu.fetchRaw(a.body.output_url)).raw;
      const fb = (await other.fetchRaw(b.body.output_url)).raw;
      expect(fa.equals(fb)).toBe(true);
    } finally {
      await other.close();
    }
  });

  it('video: a WebM (VP8) clip at a quarter of the matrix dimensions, 4 key frames per second for the duration', async () => {
    const v = await run({ model: 'video-standard', prompt: 'waves', resolution: '1080p', aspect_ratio: '9:16', duration: 5, seed: 9 });
    expect(v.body.status).toBe('completed');
    expect(v.body.output_url).toMatch(/\.webm$/);
    const f = await emu.fetchRaw(v.body.output_url);
    expect(f.headers.get('content-type')).toBe('video/webm');
    const webm = readWebm(f.raw);
    expect(webm).toMatchObject({ docType: 'webm', codec: 'V_VP8', width: 270, height: 480, durationMs: 5_000 });
    expect(webm.frames).toHaveLength(20);
    for (const frame of webm.frames) {
      // A shown VP8 key frame (version 0) with the start code and the clip's size (RFC 6386 section 9.1).
      expect((frame[0] as number) & 0x1f).toBe(0x10);
      expect([...frame.subarray(3, 6)]).toEqual([0x9d, 0x01, 0x2a]);
      expect([frame.readUInt16LE(6) & 0x3fff, frame.readUInt16LE(8) & 0x3fff]).toEqual([270, 480]);
    }
    // The scene pans: frames differ; the same seed and params give the same bytes.
    expect((webm.frames[0] as Buffer).equals(webm.frames[5] as Buffer)).toBe(false);
    expect((await emu.fetchRaw(v.body.output_url)).raw.equals(f.raw)).toBe(true);
  });

  it('audio: a playable 16-bit PCM WAV of the requested duration', async () => {
    const a = await run({ model: 'audio-voice', prompt: 'hello', duration: 3 });
    const f = await emu.fetchRaw(a.body.output_url);
    expect(f.headers.get('content-type')).toBe('audio/wav');
    const w = f.raw;
    expect(w.toString('latin1', 0, 4)).toBe('RIFF');
    expect(w.toString('latin1', 8, 12)).toBe('WAVE');
    expect(w.readUInt16LE(20)).toBe(1);
    const rate = w.readUInt32LE(24);
    expect(w.readUInt32LE(40) / 2 / rate).toBe(3);
    let peak = 0;
    for (let i = 44; i < w.length; i += 2) peak = Math.max(peak, Math.abs(w.readInt16LE(i)));
    expect(peak).toBeGreaterThan(5000);
  });

  it('text: text/plain that echoes the prompt', async () => {
    const t = await run({ model: 'text-writer', prompt: 'mountain cafe' });
    const f = await emu.fetchRaw(t.body.output_url);
    expect(f.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(f.raw.toString('utf8')).toContain('mountain cafe');
    expect(t.body.output_url).toMatch(/text-writer-1\.txt$/);
  });
});
