import { afterEach, describe, expect, it } from 'vitest';
import { createGenerationLedger, MemoryGenerationStore, type ReconcileReport } from '../src/ledger';
import { ledgerEmulator, manualClock } from './support/ledger-emulator';

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0).reverse()) await close();
});

describe('reconcile(): the pass report counts its failures', () => {
  it('a status read that failed and a handover that threw are errors of the pass that met them; a clean pass has none', async () => {
    const emu = await ledgerEmulator();
    closers.push(() => emu.close());
    const clock = manualClock();
    const reported: unknown[] = [];
    let refuse = true;
    const ledger = createGenerationLedger({
      client: emu.client(),
      store: new MemoryGenerationStore(),
      now: clock.now,
      onError: (error) => void reported.push(error),
      onTerminal: () => {
        if (refuse) throw new Error('the app was not ready');
      },
    });
    const g = await ledger.submit('alice', { model: 'image-fast', prompt: 'counted' });
    const id = g.generation_id as string;

    await emu.fault({ endpoint: 'status', count: 1, status: 500 });
    clock.advance(2_000);
    const failedRead = await ledger.reconcile();
    expect(failedRead).toMatchObject({ due: 1, followed: 1, polled: 1, resent: 0, notified: 0, errors: 1 });
    expect(reported).toHaveLength(1);

    // Terminal on the service; the next read sees it and the handover throws.
    await emu.settled(id);
    const passes: ReconcileReport[] = [];
    for (let i = 0; i < 20 && reported.length < 2; i++) {
      clock.advance(4_000);
      passes.push(await ledger.reconcile());
    }
    expect(reported).toHaveLength(2);
    expect(passes.reduce((sum, pass) => sum + pass.errors, 0)).toBe(1);

    // The app is ready: the next due pass hands it over, without an error.
    refuse = false;
    let handed: ReconcileReport | undefined;
    for (let i = 0; i < 20 && !handed?.notified; i++) {
      clock.advance(4_000);
      handed = await ledger.reconcile();
    }
    expect(handed).toMatchObject({ notified: 1, errors: 0 });
    expect(reported).toHaveLength(2);
  });

  it('a status read that finds the generation terminal and hands it over counts in notified of the same pass', async () => {
    const emu = await ledgerEmulator();
    closers.push(() => emu.close());
    const clock = manualClock();
    const handed: string[] = [];
    const ledger = createGenerationLedger({
      client: emu.client(),
      store: new MemoryGenerationStore(),
      now: clock.now,
      onTerminal: (g) => void handed.push(g.generation_id as string),
    });
    const g = await ledger.submit('alice', { model: 'image-fast', prompt: 'one pass' });
    await emu.settled(g.generation_id as string);
    clock.advance(2_000);
    expect(await ledger.reconcile()).toMatchObject({ followed: 1, polled: 1, notified: 1, errors: 0 });
    expect(handed).toEqual([g.generation_id]);
  });
});
