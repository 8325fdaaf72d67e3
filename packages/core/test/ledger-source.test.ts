import { afterAll, describe, expect, it } from 'vitest';
import { createGenerationLedger, ledgerSource, MemoryGenerationStore } from '../src/ledger';
import { SHARED_OWNER } from '../src/ledger/source';
import { ledgerEmulator } from './support/ledger-emulator';

const emu = await ledgerEmulator();
afterAll(() => emu.close());

function setup() {
  const store = new MemoryGenerationStore();
  const client = emu.client();
  const ledger = createGenerationLedger({ client, store });
  return { store, client, ledger, source: ledgerSource(ledger) };
}

describe('ledgerSource: the ledger as the server handler source', () => {
  it('submit records the intent first and answers the 202 body; a replay answers the same generation unbilled', async () => {
    const { source, store } = setup();
    const submitted = await source.submit({ model: 'image-fast', prompt: 'via source' }, { owner: 'alice', idempotencyKey: 'src-1' });
    expect(submitted).toMatchObject({ status: 'pending', model: 'image-fast', pricing_source: 'catalog_default', credits_estimate: 4 });
    expect((await store.get('src-1'))?.generation_id).toBe(submitted.generation_id);
    const replay = await source.submit({ model: 'image-fast', prompt: 'via source' }, { owner: 'alice', idempotencyKey: 'src-1' });
    expect(replay.generation_id).toBe(submitted.generation_id);
    expect(await emu.reserves()).toContain(submitted.generation_id);
    expect((await emu.reserves()).filter((id) => id === submitted.generation_id)).toHaveLength(1);
  });

  it('record adopts a generation the handler submitted itself; get and list answer only its owner', async () => {
    const { source, client } = setup();
    const params = { model: 'image-fast', prompt: 'adopted' };
    const submitted = await client.generations.create(params);
    await source.record({ owner: 'bob', submitted, params });
    await source.record({ owner: 'bob', submitted, params });
    expect((await source.get(submitted.generation_id, 'bob'))?.generation_id).toBe(submitted.generation_id);
    expect(await source.get(submitted.generation_id, 'eve')).toBeUndefined();
    expect(await source.get(submitted.generation_id, undefined)).toBeUndefined();
    const page = await source.list('bob', { limit: 10 });
    expect(page.generations.map((g) => g.generation_id)).toEqual([submitted.generation_id]);
    expect((await source.list('eve', { limit: 10 })).generations).toEqual([]);
  });

  it('with no users named, every generation belongs to one shared owner', async () => {
    const { source, ledger } = setup();
    const submitted = await source.submit({ model: 'image-fast', prompt: 'shared' }, { owner: undefined });
    expect((await ledger.get(SHARED_OWNER, submitted.generation_id))?.generation_id).toBe(submitted.generation_id);
    expect((await source.list(undefined, { limit: 5 })).generations).toHaveLength(1);
  });
});
