/**
 * The bounds of the `hold` fault on fake timers, in a file with no server (whose sockets would
 * add timers of their own): a hold and a wait for one end after FAULT_MAX_DELAY_MS at most, and
 * release, reset and close leave no timer behind.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FAULT_MAX_DELAY_MS } from '../src/bounds.js';
import { HeldRequests } from '../src/faults.js';

describe('HeldRequests: the time caps', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it(`a hold ends as released after FAULT_MAX_DELAY_MS (${FAULT_MAX_DELAY_MS} ms), and so does a wait`, async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const h = new HeldRequests();
    let ended: string | undefined;
    void h.hold('generate', 'req_1').then((how) => (ended = how));
    let woke = false;
    void h.whenHeld(2).then(() => (woke = true));
    expect(h.size).toBe(1);
    await vi.advanceTimersByTimeAsync(FAULT_MAX_DELAY_MS - 1);
    expect([ended, woke]).toEqual([undefined, false]);
    await vi.advanceTimersByTimeAsync(1);
    expect([ended, woke, h.size]).toEqual(['released', true, 0]);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('release and dropAll (reset, close) end holds and waits and clear their timers', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const h = new HeldRequests();
    const a = h.hold('status', 'req_a');
    const b = h.hold('models', 'req_b');
    const reached = h.whenHeld(2);
    const waiting = h.whenHeld(3);
    await reached;
    expect(h.release(1)).toBe(1);
    expect(await a).toBe('released');
    expect(h.list()).toEqual([{ endpoint: 'models', request_id: 'req_b' }]);
    h.dropAll();
    expect(await b).toBe('dropped');
    await waiting;
    expect([h.size, h.release(), vi.getTimerCount()]).toEqual([0, 0, 0]);
  });
});
