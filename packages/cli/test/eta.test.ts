import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Generation } from '@mediagen/core';
import type { RunningEmulator } from '@mediagen/emulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIo } from '../src/io';
import { createProgress, etaText } from '../src/progress';
import { loadRenderHistory } from '../src/render-history';
import { control, emulator, spawnCli, tempDir, waitForOutput } from './helpers';

let emu: RunningEmulator;
beforeAll(async () => {
  emu = await emulator(0.01);
});
afterAll(() => emu?.close());

const NOW = '2026-01-01T00:00:00.000Z';
const eta = (over: Record<string, unknown> = {}) => ({
  estimate: true as const,
  remaining_p50_ms: 6_400,
  remaining_p90_ms: 9_000,
  as_of: NOW,
  basis: 'history' as const,
  samples: 14,
  overdue: false,
  ...over,
});

describe('the progress line shows the estimate of time left, labelled as one', () => {
  it('names what it rests on: past renders, or the contract typical range; says so when it runs long', () => {
    expect(etaText(eta(), 'image')).toBe('~6s left, ≤9s at p90 (estimate from 14 past renders)');
    expect(etaText(eta({ basis: 'typical', samples: 0, remaining_p50_ms: 10_000, remaining_p90_ms: 14_000 }), 'image')).toBe(
      '~10s left, ≤14s at p90 (estimate: image usually takes 5-15 s)',
    );
    expect(etaText(eta({ overdue: true, remaining_p50_ms: 0, remaining_p90_ms: 0 }), 'image')).toBe(
      'longer than usual (estimate from 14 past renders)',
    );
    expect(etaText(undefined, 'image')).toBeUndefined();
  });

  it('on a pipe: the estimate while it runs, the typical range once it is done', () => {
    let err = '';
    const io = createIo(
      { stdout: { write: () => true } as never, stderr: { write: (s: string) => ((err += s), true) } as never },
      { color: false },
    );
    const progress = createProgress(io, 'image', { estimate: () => eta() });
    progress.update({ status: 'processing' } as Generation);
    progress.update({ status: 'completed' } as Generation);
    progress.stop();
    expect(err).toMatch(/^status processing after 0s \(~6s left, ≤9s at p90 \(estimate from 14 past renders\)\)$/m);
    expect(err).toMatch(/^status completed after 0s \(image usually takes 5-15 s\)$/m);
  });
});

describe('the render history of the CLI', () => {
  it('learns across runs, from the fifth render of a model and its render params; a foreign file is an empty history', async () => {
    const env = { XDG_CACHE_HOME: await tempDir('eta-cache') };
    const first = await loadRenderHistory(env);
    expect(first.estimate({ model: 'image-fast' }, 'image', 0)).toMatchObject({ basis: 'typical', remaining_p50_ms: 10_000 });
    for (const ms of [1_000, 2_000, 3_000, 4_000, 5_000]) await first.record({ model: 'image-fast', prompt: 'not kept' } as never, ms);
    const again = await loadRenderHistory(env);
    expect(again.estimate({ model: 'image-fast' }, 'image', 0)).toMatchObject({ basis: 'history', samples: 5, remaining_p50_ms: 3_000 });
    const saved = await readFile(join(env.XDG_CACHE_HOME, 'mediagen', 'render-times.json'), 'utf8');
    expect(saved).not.toContain('not kept');

    for (const foreign of [
      'not json',
      '{"a":1}',
      JSON.stringify([
        { shape: { model: 7 }, ms: 1 },
        { shape: { model: 'x' }, ms: -1 },
      ]),
      'x'.repeat(400_000),
    ]) {
      const home = { XDG_CACHE_HOME: await tempDir('eta-foreign') };
      await mkdir(join(home.XDG_CACHE_HOME, 'mediagen'), { recursive: true });
      await writeFile(join(home.XDG_CACHE_HOME, 'mediagen', 'render-times.json'), foreign);
      const history = await loadRenderHistory(home);
      expect(history.estimate({ model: 'x' }, 'image', 0)).toMatchObject({ basis: 'typical' });
    }
  });

  it('generate --wait against the emulator: the line shows the estimate from the seeded history, and the render joins it', async () => {
    const cache = await tempDir('eta-e2e');
    await mkdir(join(cache, 'mediagen'), { recursive: true });
    const seeded = [2_000, 4_000, 6_000, 8_000, 10_000].map((ms) => ({ shape: { model: 'image-fast' }, ms }));
    await writeFile(join(cache, 'mediagen', 'render-times.json'), JSON.stringify(seeded));
    const out = await tempDir('eta-out');
    const { child, done } = spawnCli(['generate', '--model', 'image-fast', '--prompt', 'held [[hold]]', '--wait', '--out', out], {
      baseUrl: emu.url,
      env: { XDG_CACHE_HOME: cache },
    });
    const line = await waitForOutput(child, /status (?:pending|processing) after \d+s \((.*)\)\n/);
    expect(line).toMatch(/^~\d+s left, ≤\d+s at p90 \(estimate from 5 past renders\)$/);
    await control(emu.url, '/faults/held?min=1');
    await control(emu.url, '/faults/release', { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
    const { code, stderr } = await done;
    expect(code, stderr).toBe(0);
    const kept = JSON.parse(await readFile(join(cache, 'mediagen', 'render-times.json'), 'utf8')) as unknown[];
    expect(kept).toHaveLength(6);
    expect(kept.at(-1)).toMatchObject({ shape: { model: 'image-fast' } });
  });
});
