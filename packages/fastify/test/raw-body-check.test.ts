import { checkRawBodyKept } from '@mediagen/core/internal';
import Fastify from 'fastify';
import { expect, it } from 'vitest';

// Core's start-up check (used by @mediagen/nestjs on Fastify) against Fastify's real parser registry.
it("tells Fastify's own JSON parser (no raw body) from one that keeps req.rawBody and one that drops it", async () => {
  const plain = Fastify();
  const keeping = Fastify();
  keeping.addContentTypeParser('application/json', { parseAs: 'buffer' }, (req, body, done) => {
    (req as { rawBody?: Buffer }).rawBody = body as Buffer;
    done(null, JSON.parse(body.toString()));
  });
  const dropping = Fastify();
  dropping.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => done(null, JSON.parse(body as string)));
  expect(await checkRawBodyKept('fastify', plain)).toBe('no-parser');
  expect(await checkRawBodyKept('fastify', keeping)).toBe('kept');
  expect(await checkRawBodyKept('fastify', dropping)).toBe('not-kept');
});
