import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunningEmulator } from '@mediagen/emulator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { binEnv, data, stdioClient } from './support/clients';
import { bills, emulator } from './support/emulator';

let emu: RunningEmulator;
beforeAll(async () => {
  emu = await emulator();
});
afterAll(async () => {
  await emu?.close();
});

/** Kills the bin as a crash would: no shutdown code runs. */
async function kill(pid: number): Promise<void> {
  process.kill(pid, 'SIGKILL');
  await new Promise<void>((resolve) => {
    const check = () => {
      try {
        process.kill(pid, 0);
        setImmediate(check);
      } catch {
        resolve();
      }
    };
    check();
  });
}

describe('the stdio server killed with SIGKILL', () => {
  it('during a render: restarted on the same ledger file, it answers the finished result for the same id', async () => {
    const env = binEnv(emu.url, join(mkdtempSync(join(tmpdir(), 'mcp-restart-')), 'ledger.sqlite'));
    const first = await stdioClient(env);
    // `[[hold]]`: the emulator keeps this render processing until the test releases it.
    const started = data(
      await first.client.callTool({ name: 'generate', arguments: { model: 'image-fast', prompt: '[[hold]] a harbour' } }),
    );
    await emu.faults.held({ min: 1 });
    await kill(first.pid);
    await emu.faults.release();

    const second = await stdioClient(env);
    const done = data(await second.client.callTool({ name: 'wait', arguments: { id: started.generation_id } }));
    expect(done).toMatchObject({ generation_id: started.generation_id, status: 'completed' });
    expect(done.output_url).toContain(`/api/v1/output/${started.generation_id}/`);
    const resource = await second.client.readResource({ uri: `mediagen://generations/${started.generation_id}` });
    expect(JSON.parse((resource.contents[0] as { text: string }).text).status).toBe('completed');
    const listed = await second.client.listResources();
    expect(listed.resources.map((r) => r.uri)).toContain(`mediagen://generations/${started.generation_id}`);
    await second.client.close();
  });

  it('during the submit: a retry with the same request_key after the restart bills once', async () => {
    const env = binEnv(emu.url, join(mkdtempSync(join(tmpdir(), 'mcp-restart-')), 'ledger.sqlite'));
    const before = await bills(emu);
    const args = { model: 'image-fast', prompt: 'a crash mid-submit', request_key: 'crash-1' };
    const first = await stdioClient(env);
    await emu.faults.add({ endpoint: 'generate', hold: true });
    void first.client.callTool({ name: 'generate', arguments: args }).catch(() => {});
    await emu.faults.held({ min: 1 });
    await kill(first.pid);
    await emu.faults.release();

    const second = await stdioClient(env);
    const retried = data(await second.client.callTool({ name: 'generate', arguments: args }));
    expect(retried.generation_id).toEqual(expect.any(String));
    const done = data(await second.client.callTool({ name: 'wait', arguments: { id: retried.generation_id } }));
    expect(done.status).toBe('completed');
    expect(await bills(emu)).toBe(before + 1);
    await second.client.close();
  });
});
