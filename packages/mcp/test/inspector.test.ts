import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunningEmulator } from '@mediagen/emulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, binEnv, type HttpApp, httpApp } from './support/clients';
import { bills, emulator } from './support/emulator';
import { inspector, NODE_22 } from './support/tools';

let emu: RunningEmulator;
let app: HttpApp;
beforeAll(async () => {
  emu = await emulator();
  app = await httpApp(emu.url);
});
afterAll(async () => {
  await app?.close();
  await emu?.close();
});

/** The Inspector starts stdio servers with a minimal environment: the bin's settings go through `env`. */
const stdioTarget = () => {
  const env = binEnv(emu.url, join(mkdtempSync(join(tmpdir(), 'mcp-inspector-')), 'ledger.sqlite'));
  return ['/usr/bin/env', ...Object.entries(env).map(([k, v]) => `${k}=${v}`), NODE_22, BIN];
};
const httpTarget = () => [app.url, '--transport', 'http', '--header', 'x-user: inspector'];

const structured = (result: Record<string, any>) => result.structuredContent as Record<string, any>;

describe.each([
  ['stdio', stdioTarget],
  ['Streamable HTTP', httpTarget],
])('the MCP Inspector CLI over %s', (_name, target) => {
  it('drives every tool and reads the resource', async () => {
    const t = target();
    const call = (tool: string, ...args: string[]) =>
      inspector(t, ['--method', 'tools/call', '--tool-name', tool, ...(args.length ? ['--tool-arg', ...args] : [])]);

    const tools = await inspector(t, ['--method', 'tools/list']);
    expect(tools.tools.map((x: { name: string }) => x.name).sort()).toEqual([
      'credits',
      'describe_model',
      'estimate',
      'generate',
      'get',
      'list_models',
      'wait',
    ]);
    expect(structured(await call('list_models')).models.length).toBeGreaterThan(0);
    expect(structured(await call('describe_model', 'model=image-pro')).params_schema.properties.quality.enum).toEqual([
      'standard',
      'high',
      'ultra',
    ]);
    expect(structured(await call('estimate', 'model=image-fast', 'prompt=a kite')).credits_estimate).toBe(4);

    const before = await bills(emu);
    // Each Inspector run is a new session: request_key makes the second run the same call.
    const made = structured(await call('generate', 'model=image-fast', 'prompt=a kite', 'request_key=kite-1'));
    const again = structured(await call('generate', 'model=image-fast', 'prompt=a kite', 'request_key=kite-1'));
    expect(again.generation_id).toBe(made.generation_id);
    expect(await bills(emu)).toBe(before + 1);

    expect(structured(await call('wait', `id=${made.generation_id}`)).status).toBe('completed');
    expect(structured(await call('get', `id=${made.generation_id}`)).output_url).toContain(made.generation_id);
    expect(typeof structured(await call('credits')).balance).toBe('number');
    const read = await inspector(t, ['--method', 'resources/read', '--uri', `mediagen://generations/${made.generation_id}`]);
    expect(JSON.parse(read.contents[0].text).status).toBe('completed');
    const templates = await inspector(t, ['--method', 'resources/templates/list']);
    expect(templates.resourceTemplates[0].uriTemplate).toBe('mediagen://generations/{id}');
  });
});
