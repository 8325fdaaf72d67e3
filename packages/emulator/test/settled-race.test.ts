import { afterAll, expect, it, vi } from 'vitest';
import { createEmulator } from '../src/index.js';

// `deliveries.settled(id)` resolves once the generation is terminal AND its webhook chains have
// ended. A generation that comes due between the scheduler's pass and the status read is
// finished by that read, which starts its deliveries then: settled() must wait for them, not
// answer at once with an empty log (seen in CI under load: the Express testing-guide test got []).

const KEY = 'svc_live_settled_race';
const emu = createEmulator({
  config: {
    timeScale: 0.001,
    accounts: [
      {
        id: 'acct_race',
        tier: 'pro',
        balance: 100,
        keys: [{ key: KEY }],
        webhooks: [{ url: 'https://app.test/hook', secret: 'whsec_race' }],
      },
    ],
  },
  // The receiver answers on a later turn, as a real one does.
  webhookFetch: async () => {
    await new Promise((resolve) => setImmediate(resolve));
    return new Response('{}', { status: 200 });
  },
});
afterAll(() => emu.close());

it('waits for the deliveries a status read started when the generation came due between the two', async () => {
  const res = await emu.fetch(`${emu.url}/api/v1/generate`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', 'idempotency-key': 'race-1' },
    body: JSON.stringify({ model: 'image-fast', prompt: 'a lighthouse' }),
  });
  const { generation_id } = (await res.json()) as { generation_id: string };
  // The scheduler's pass sees the present (nothing due); the status read, just after, sees the
  // render over: exactly the window a loaded machine opens.
  const now = performance.now();
  const clock = vi
    .spyOn(performance, 'now')
    .mockReturnValueOnce(now)
    .mockReturnValue(now + 3_600_000);
  const settled = emu.deliveries.settled(generation_id);
  clock.mockRestore();
  const rows = await settled;
  expect(rows.map((row) => [row.status, row.outcome])).toEqual([[200, 'delivered']]);
});
