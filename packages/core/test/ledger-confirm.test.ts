import { afterAll, describe, expect, it } from 'vitest';
import { createGenerationLedger, MemoryGenerationStore } from '../src/ledger';
import { ledgerEmulator } from './support/ledger-emulator';

const emu = await ledgerEmulator();
afterAll(() => emu.close());

/** One app process: a ledger over the shared store (a restart is a new ledger on the same store). */
const appProcess = (store: MemoryGenerationStore) => createGenerationLedger({ client: emu.client(), store });

async function completedIn(store: MemoryGenerationStore, prompt: string) {
  const first = appProcess(store);
  const submitted = await first.submit('alice', { model: 'image-fast', prompt });
  const id = submitted.generation_id as string;
  await emu.settled(id);
  const done = await first.wait('alice', id);
  expect(done).toMatchObject({ status: 'completed', available: true });
  return { first, id, done };
}

describe('ledger: links confirmed once per process before they are served', () => {
  it('after the service forgot its generations, a restarted app marks them unavailable instead of serving dead links', async () => {
    const store = new MemoryGenerationStore();
    const { id } = await completedIn(store, 'forgotten');
    await emu.reset(); // the emulator restarted: its records are gone, the app's store keeps them
    const restarted = appProcess(store);
    const read = await restarted.get('alice', id);
    expect(read).toMatchObject({ generation_id: id, status: 'completed', available: false, output_url: null, output_urls: null });
    const listed = await restarted.list('alice');
    expect(listed.generations.map((g) => [g.generation_id, g.available, g.output_url])).toEqual([[id, false, null]]);
  });

  it('a restarted app reads each completed generation once, then serves its links without asking again', async () => {
    const store = new MemoryGenerationStore();
    const { id } = await completedIn(store, 'still there');
    const restarted = appProcess(store);
    const before = emu.reads.filter((r) => r === id).length;
    const listed = await restarted.list('alice');
    expect(listed.generations[0]).toMatchObject({ generation_id: id, available: true });
    expect(listed.generations[0]?.output_url).toMatch(/^http/);
    expect(emu.reads.filter((r) => r === id).length).toBe(before + 1);
    await restarted.list('alice');
    await restarted.get('alice', id);
    expect(emu.reads.filter((r) => r === id).length).toBe(before + 1);
    const link = (await restarted.get('alice', id))?.output_url as string;
    expect((await fetch(link)).status).toBe(200);
  });

  it('the process that saw a generation complete needs no extra read to serve it', async () => {
    const store = new MemoryGenerationStore();
    const { first, id } = await completedIn(store, 'seen here');
    const before = emu.reads.filter((r) => r === id).length;
    expect((await first.get('alice', id))?.available).toBe(true);
    expect(emu.reads.filter((r) => r === id).length).toBe(before);
  });

  it("serves the owner's submitted params (its prompt) and nothing to anyone else", async () => {
    const store = new MemoryGenerationStore();
    const { first, id, done } = await completedIn(store, 'a lighthouse at dusk');
    expect(done.params).toEqual({ model: 'image-fast', prompt: 'a lighthouse at dusk' });
    expect((await first.get('alice', id))?.params.prompt).toBe('a lighthouse at dusk');
    expect((await first.list('alice')).generations[0]?.params.prompt).toBe('a lighthouse at dusk');
    expect(await first.get('eve', id)).toBeUndefined();
    expect((await first.list('eve')).generations).toEqual([]);
  });
});
