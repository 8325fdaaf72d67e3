import { afterAll, describe, expect, it } from 'vitest';
import { Gate, type GateStore, MediaGenClient, MediaGenError } from '../src/index';
import { createGenerationLedger, MemoryGenerationStore } from '../src/ledger';
import { KEY, ledgerEmulator, manualClock } from './support/ledger-emulator';

const emu = await ledgerEmulator();
afterAll(() => emu.close());

/**
 * Found by the fleet soak (issue 36): an instance cut off from Redis refuses every submit at its
 * fail-closed gate (REDIS_UNAVAILABLE: nothing sent, nothing billed). The intent is left for any
 * instance to resend, but it was spaced out like an answer that may have been billed (half its
 * age, up to 5 min): after a 45 s partition an intent waited some 20 s more for a resend that
 * would have gone through at once on a healthy instance. A refusal before sending owes no backoff.
 */
describe('the ledger, when the account gate refuses before sending', () => {
  it('leaves the intent to any instance within a second, however old it is (nothing reached the service)', async () => {
    let refuse = true;
    const refusing: GateStore = {
      acquire: () => {
        if (refuse)
          throw new MediaGenError('Redis refused acquire.', {
            status: 503,
            code: 'REDIS_UNAVAILABLE',
            next: 'Retry once Redis is reachable.',
          });
        return { token: 't' };
      },
      bind() {},
      release() {},
      settle() {},
    };
    const client = new MediaGenClient({ apiKey: KEY, baseUrl: emu.url, gate: new Gate({ store: refusing }) });
    const clock = manualClock();
    const store = new MemoryGenerationStore();
    const ledger = createGenerationLedger({ client, store, now: clock.now, onError: () => {} });
    const params = { model: 'image-fast', prompt: 'partitioned' };

    await expect(ledger.submit('ada', params, { idempotencyKey: 'cut-off-1' })).rejects.toMatchObject({ code: 'REDIS_UNAVAILABLE' });
    // The intent has waited a minute (the partition); the resend on this instance is refused again.
    clock.advance(60_000);
    await expect(ledger.submit('ada', params, { idempotencyKey: 'cut-off-1' })).rejects.toMatchObject({ code: 'REDIS_UNAVAILABLE' });
    const record = await store.get('cut-off-1');
    expect(record?.status).toBe('submitting');
    expect(record?.lease_holder ?? null).toBeNull();
    expect(record!.next_check_at - clock.now()).toBeLessThanOrEqual(1_000);
    expect(await emu.reserves()).not.toContain(record?.generation_id);

    // Healed: the next send goes through and is billed once.
    refuse = false;
    const sent = await ledger.submit('ada', params, { idempotencyKey: 'cut-off-1' });
    expect(sent.generation_id).toEqual(expect.any(String));
    expect((await emu.reserves()).filter((id) => id === sent.generation_id)).toHaveLength(1);
  });

  it('resends only one intent per pass while its own gate refuses, leaving the rest to instances whose gate serves', async () => {
    const refusing: GateStore = {
      acquire: () => {
        throw new MediaGenError('Redis refused acquire.', {
          status: 503,
          code: 'REDIS_UNAVAILABLE',
          next: 'Retry once Redis is reachable.',
        });
      },
      bind() {},
      release() {},
      settle() {},
    };
    const clock = manualClock();
    const store = new MemoryGenerationStore();
    const cutOff = createGenerationLedger({
      client: new MediaGenClient({ apiKey: KEY, baseUrl: emu.url, gate: new Gate({ store: refusing }) }),
      store,
      now: clock.now,
      onError: () => {},
    });
    for (const key of ['held-1', 'held-2', 'held-3']) {
      await expect(cutOff.submit('ada', { model: 'image-fast', prompt: key }, { idempotencyKey: key })).rejects.toMatchObject({
        code: 'REDIS_UNAVAILABLE',
      });
    }
    clock.advance(1_000);
    // Three intents due: the instance whose gate just refused takes one (a probe), not all three.
    expect((await cutOff.reconcile()).followed).toBe(1);
    // A healthy instance on the same store takes the others up at once.
    const healthy = createGenerationLedger({ client: emu.client(), store, now: clock.now, onError: () => {} });
    clock.advance(1_000);
    expect((await healthy.reconcile()).resent).toBe(3);
    for (const key of ['held-1', 'held-2', 'held-3']) expect((await store.get(key))?.generation_id).toEqual(expect.any(String));
  });
});
