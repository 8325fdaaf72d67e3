import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ERROR_CODES, type ErrorCode } from '@mediagen/core/wire';
import { expect, it } from 'vitest';

/** Statuses a code is answered with beside its table's own, each for a reason the contract gives. */
const ALSO: Partial<Record<ErrorCode, number[]>> = {
  // Spec: "Also as 413 with this code"; 400 for malformed control and fault bodies.
  INVALID_BODY: [400, 413],
};

it("every status the emulator answers a code with is the error-code table's (or a listed exception)", () => {
  const dir = new URL('../src/', import.meta.url).pathname;
  const thrown = readdirSync(dir)
    .filter((file) => file.endsWith('.ts'))
    .flatMap((file) => [...readFileSync(join(dir, file), 'utf8').matchAll(/new EmulatorHttpError\(\s*(\d{3}),\s*'([A-Z_]+)'/g)])
    .map(([, status, code]) => [code as ErrorCode, Number(status)] as const);
  expect(thrown.length).toBeGreaterThan(30);
  for (const [code, status] of thrown) {
    expect([code, [ERROR_CODES[code].status, ...(ALSO[code] ?? [])]]).toEqual([code, expect.arrayContaining([status])]);
  }
});
