import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunningEmulator } from '@mediagen/emulator';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { binEnv, data, type HttpApp, httpApp, httpClient, stdioClient } from './support/clients';
import { bills, emulator } from './support/emulator';

const TOOLS = ['credits', 'describe_model', 'estimate', 'generate', 'get', 'list_models', 'wait'];

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

const transports: [string, () => Promise<{ client: Client; close(): Promise<void> }>][] = [
  [
    'stdio',
    async () => {
      const { client } = await stdioClient(binEnv(emu.url, join(mkdtempSync(join(tmpdir(), 'mcp-tools-')), 'ledger.sqlite')));
      return { client, close: () => client.close() };
    },
  ],
  [
    'Streamable HTTP',
    async () => {
      const { client } = await httpClient(app.url, 'alice');
      return { client, close: () => client.close() };
    },
  ],
];

describe.each(transports)('every tool over %s', (_name, connect) => {
  it('lists models, describes one, estimates, generates once, waits with progress, gets, reads credits and the resource', async () => {
    const { client, close } = await connect();
    try {
      const listed = await client.listTools();
      expect(listed.tools.map((t) => t.name).sort()).toEqual(TOOLS);
      const generateTool = listed.tools.find((t) => t.name === 'generate')!;
      // The schema is drawn from the live list: the model field is an enum of the account's slugs.
      expect((generateTool.inputSchema.properties as any).model.enum).toContain('image-fast');

      const models = data(await client.callTool({ name: 'list_models', arguments: {} }));
      expect(models.models.find((m: any) => m.slug === 'image-fast').price.credits_from).toBe(4);

      const described = data(await client.callTool({ name: 'describe_model', arguments: { model: 'image-fast' } }));
      expect(described.params_schema.properties.aspect_ratio.enum).toContain('16:9');
      expect(described.typical_render_seconds).toEqual({ min: 5, max: 15 });

      const params = { model: 'image-fast', prompt: 'a lighthouse at dusk', number_results: 2 };
      const quote = data(await client.callTool({ name: 'estimate', arguments: params }));
      expect(quote.credits_estimate).toBe(8);

      const before = await bills(emu);
      const first = data(await client.callTool({ name: 'generate', arguments: params }));
      const again = data(
        await client.callTool({ name: 'generate', arguments: { number_results: 2, prompt: params.prompt, model: 'image-fast' } }),
      );
      expect(again.generation_id).toBe(first.generation_id);
      expect(again.replayed).toBe(true);
      expect(await bills(emu)).toBe(before + 1);

      const progress: number[] = [];
      const done = await client.callTool({ name: 'wait', arguments: { id: first.generation_id } }, undefined, {
        onprogress: (p) => void progress.push(p.progress),
      });
      expect(data(done).status).toBe('completed');
      expect(progress.length).toBeGreaterThan(0);
      // Small images come back as image content, besides their links.
      expect((done.content as any[]).some((c) => c.type === 'image' && c.mimeType === 'image/png')).toBe(true);

      const got = await client.callTool({ name: 'get', arguments: { id: first.generation_id } });
      expect(data(got).output_urls).toHaveLength(2);

      const credits = data(await client.callTool({ name: 'credits', arguments: {} }));
      expect(typeof credits.balance).toBe('number');

      const resource = await client.readResource({ uri: `mediagen://generations/${first.generation_id}` });
      expect(JSON.parse((resource.contents[0] as any).text).status).toBe('completed');

      const text = await client.callTool({ name: 'generate', arguments: { model: 'text-writer', prompt: 'a haiku about tide pools' } });
      const textDone = await client.callTool({ name: 'wait', arguments: { id: data(text).generation_id } });
      expect((textDone.content as any[]).some((c) => c.type === 'text' && c.text.includes('tide pools'))).toBe(true);
    } finally {
      await close();
    }
  });
});
