/**
 * `startEmulator` gives the same test controls as `createEmulator`: a test against a listening
 * emulator (a real app, a browser) holds, releases and reads it without hand-written fetches.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EmulatorControlError, type RunningEmulator, startEmulator } from '../src/index.js';
import { KEY } from './helpers.js';

describe('startEmulator: the controls as calls', () => {
  let emu: RunningEmulator;
  beforeAll(async () => {
    emu = await startEmulator({
      port: 0,
      config: { timeScale: 1e-6, accounts: [{ id: 'acct_run', tier: 'pro', balance: 500, keys: [{ key: KEY }] }] },
    });
  });
  afterAll(() => emu.close());
  const submit = async (prompt: string) =>
    (await (
      await fetch(`${emu.url}/api/v1/generate`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'image-fast', prompt }),
      })
    ).json()) as { generation_id: string; request_id: string };
  const status = async (id: string) =>
    (
      (await (await fetch(`${emu.url}/api/v1/generations/${id}`, { headers: { authorization: `Bearer ${KEY}` } })).json()) as {
        status: string;
      }
    ).status;

  it('holds a [[hold]] generation over the network and releases it by call', async () => {
    const accepted = await submit('kept [[hold]]');
    expect(await emu.faults.held({ min: 1 })).toEqual([
      { endpoint: 'render', request_id: accepted.request_id, generation_id: accepted.generation_id },
    ]);
    expect(await status(accepted.generation_id)).toBe('processing');
    expect(await emu.faults.release()).toBe(1);
    await emu.deliveries.settled(accepted.generation_id);
    expect(await status(accepted.generation_id)).toBe('completed');
  });

  it('faults, accounts, clock and reset act on the served emulator', async () => {
    await emu.faults.add({ endpoint: 'credits', status: 503 });
    expect((await fetch(`${emu.url}/api/v1/credits`, { headers: { authorization: `Bearer ${KEY}` } })).status).toBe(503);
    expect((await emu.accounts.update('acct_run', { balance: 7 })).balance).toBe(7);
    const before = await emu.clock.now();
    expect((await emu.clock.advance(60_000)).getTime()).toBeGreaterThanOrEqual(before.getTime() + 60_000);
    await emu.reset();
    expect((await emu.accounts.get('acct_run')).balance).toBe(500);
    await expect(emu.accounts.get('acct_nobody')).rejects.toBeInstanceOf(EmulatorControlError);
  });
});
