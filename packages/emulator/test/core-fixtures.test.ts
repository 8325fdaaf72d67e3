import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { defaultRequest, entries } from '../src/catalog.js';

/**
 * Core's test fixtures (`packages/core/test/support/catalog.json`) are the emulator's catalog,
 * written by this test: `pnpm --filter @mediagen/emulator fixtures` rewrites the file, and
 * every other run fails when the file and the catalog differ, so the two cannot drift.
 * `credits_from` is the default account's live price (no override), as `GET /models` shows it.
 */
const FILE = fileURLToPath(new URL('../../core/test/support/catalog.json', import.meta.url));

const fromCatalog = () => JSON.parse(JSON.stringify(entries.map((e) => ({ ...e.model, credits_from: e.price(defaultRequest(e)) }))));

describe("core's fixtures", () => {
  it('equal the catalog (MEDIAGEN_WRITE_FIXTURES=1 rewrites them)', () => {
    const want = fromCatalog();
    if (process.env.MEDIAGEN_WRITE_FIXTURES === '1') writeFileSync(FILE, `${JSON.stringify(want, null, 2)}\n`);
    expect(JSON.parse(readFileSync(FILE, 'utf8'))).toEqual(want);
  });
});
