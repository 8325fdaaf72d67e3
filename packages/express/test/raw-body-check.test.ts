import { checkRawBodyKept } from '@mediagen/core/internal';
import express5 from 'express';
import express4 from 'express4';
import { describe, expect, it } from 'vitest';

// Core's start-up check (used by @mediagen/nestjs) against the real Express parsers.
describe.each([
  ['express 5', express5],
  ['express 4', express4],
] as const)('%s: checkRawBodyKept', (_name, expressModule) => {
  it('tells a JSON parser that keeps req.rawBody, one that drops it, and none', async () => {
    const keeping = expressModule();
    keeping.use(expressModule.json({ verify: (req, _res, buf) => void ((req as { rawBody?: Buffer }).rawBody = buf) }));
    const dropping = expressModule();
    dropping.use(expressModule.json());
    const none = expressModule();
    none.get('/', (_req, res) => void res.end());
    expect(await checkRawBodyKept('express', keeping)).toBe('kept');
    expect(await checkRawBodyKept('express', dropping)).toBe('not-kept');
    expect(await checkRawBodyKept('express', none)).toBe('no-parser');
    expect(await checkRawBodyKept('koa', keeping)).toBe('unknown');
  });
});
