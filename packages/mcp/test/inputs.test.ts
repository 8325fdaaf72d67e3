import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type RunningEmulator, startEmulator } from '@mediagen/emulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { binEnv, data, stdioClient } from './support/clients';
import { ACCOUNT, API_KEY, bills } from './support/emulator';

/** A valid 1x1 red PNG: the file on the agent's machine. */
const PNG = Buffer.from(
  '89504e470d0a1a0a0000000d4948445200000001000000010802000000907753de0000000c4944415478da63f8cfc000000301010018dd8db00000000049454e44ae426082',
  'hex',
);

let emu: RunningEmulator;
beforeAll(async () => {
  // As the bin starts its own: loopback inputs on, so it can fetch what the bin serves.
  emu = await startEmulator({
    port: 0,
    allowLoopbackInputs: true,
    config: { timeScale: 0.01, accounts: [{ id: ACCOUNT, tier: 'pro', balance: 10_000, keys: [{ key: API_KEY }] }] },
  });
});
afterAll(async () => {
  await emu?.close();
});

describe('a file the agent names as an input (stdio, the local emulator)', () => {
  it('is stored, served to the emulator on loopback, and upscaled; the same call again bills nothing more', async () => {
    const home = mkdtempSync(join(tmpdir(), 'mcp-inputs-'));
    const photo = join(home, 'photo.png');
    writeFileSync(photo, PNG);
    const env = binEnv(emu.url, join(home, 'ledger.sqlite'), { MEDIAGEN_MCP_HOME: home });
    const { client } = await stdioClient(env);
    try {
      const tools = await client.listTools();
      const generateTool = tools.tools.find((t) => t.name === 'generate');
      expect(JSON.stringify(generateTool?.inputSchema)).toContain('the path of a file on this machine');
      const before = await bills(emu);
      const started = data(await client.callTool({ name: 'generate', arguments: { model: 'image-upscale', input_image: photo } }));
      const done = data(await client.callTool({ name: 'wait', arguments: { id: started.generation_id } }));
      expect(done).toMatchObject({ generation_id: started.generation_id, status: 'completed' });
      const again = data(await client.callTool({ name: 'generate', arguments: { model: 'image-upscale', input_image: photo } }));
      expect(again.generation_id).toBe(started.generation_id);
      expect((await bills(emu)) - before).toBe(1);
      // A path that is no file is the agent's error, nothing billed.
      const missing = await client.callTool({
        name: 'generate',
        arguments: { model: 'image-upscale', input_image: join(home, 'nope.png') },
      });
      expect(missing.isError).toBe(true);
      expect(JSON.stringify(missing.content)).toContain('INPUT_FILE_UNREADABLE');
      expect((await bills(emu)) - before).toBe(1);
    } finally {
      await client.close();
    }
  });
});
