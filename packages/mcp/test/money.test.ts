import type { RunningEmulator } from '@mediagen/emulator';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { data, type HttpApp, httpApp, httpClient } from './support/clients';
import { bills, emulator } from './support/emulator';

let emu: RunningEmulator;
const apps: HttpApp[] = [];
beforeAll(async () => {
  emu = await emulator();
});
afterEach(async () => {
  await emu.faults.clear();
  await emu.faults.release().catch(() => {});
});
afterAll(async () => {
  for (const app of apps) await app.close();
  await emu?.close();
});
const app = async (options: Parameters<typeof httpApp>[1] = {}) => {
  const made = await httpApp(emu.url, options);
  apps.push(made);
  return made;
};

describe('a generate retried after a dropped connection', () => {
  it('returns the same generation, billed once, in the same session and with a request_key in a new one', async () => {
    const { url } = await app();
    const first = await httpClient(url, 'alice');
    const sessionId = first.transport.sessionId as string;
    const args = { model: 'image-fast', prompt: 'a dropped call' };
    const before = await bills(emu);

    // The submit is held inside the emulator; the agent's connection drops meanwhile.
    await emu.faults.add({ endpoint: 'generate', hold: true });
    const dropped = first.client.callTool({ name: 'generate', arguments: args }).catch((error: unknown) => error);
    await emu.faults.held({ min: 1 });
    await first.transport.close(); // no DELETE: the session stays, as after a network drop
    expect(await dropped).toBeInstanceOf(Error);
    await emu.faults.release();

    // The agent reconnects to its session and calls again, the same arguments.
    const again = await httpClient(url, 'alice', { sessionId });
    const retried = data(await again.client.callTool({ name: 'generate', arguments: args }));
    expect(retried.generation_id).toEqual(expect.any(String));
    expect(await bills(emu)).toBe(before + 1);

    // And once more, from another session, by its own request key: a first call bills, its repeat does not.
    const other = await httpClient(url, 'alice');
    const keyed = data(await other.client.callTool({ name: 'generate', arguments: { ...args, prompt: 'keyed', request_key: 'order-7' } }));
    const third = await httpClient(url, 'alice');
    const keyedAgain = data(
      await third.client.callTool({ name: 'generate', arguments: { ...args, prompt: 'keyed', request_key: 'order-7' } }),
    );
    expect(keyedAgain.generation_id).toBe(keyed.generation_id);
    expect(keyedAgain.replayed).toBe(true);
    expect(await bills(emu)).toBe(before + 2);
    for (const c of [again, other, third]) await c.client.close();
  });
});

describe('the spend cap', () => {
  it('holds under parallel calls in one session, and is reported', async () => {
    const { url } = await app({ spendCapCredits: 10 });
    const { client } = await httpClient(url, 'carol');
    const before = await bills(emu);
    // image-fast costs 4: two fit in 10 credits, a third would not.
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) => client.callTool({ name: 'generate', arguments: { model: 'image-fast', prompt: `cap ${i}` } })),
    );
    const refused = results.filter((r) => r.isError);
    expect(results.length - refused.length).toBe(2);
    expect(refused.every((r) => data(r).error === 'SPEND_CAP_EXCEEDED')).toBe(true);
    expect(await bills(emu)).toBe(before + 2);
    const credits = data(await client.callTool({ name: 'credits', arguments: {} }));
    expect(credits.session_spend).toEqual({ cap: 10, committed: 8, remaining: 2 });
    await client.close();
  });
});

describe('per-user scoping over HTTP', () => {
  it("answers nobody without a user, and never shows one user's generation or session to another", async () => {
    const { url } = await app();
    const anonymous = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(anonymous.status).toBe(401);

    const alice = await httpClient(url, 'alice');
    const made = data(await alice.client.callTool({ name: 'generate', arguments: { model: 'image-fast', prompt: 'mine' } }));
    const bob = await httpClient(url, 'bob');
    const peek = await bob.client.callTool({ name: 'get', arguments: { id: made.generation_id } });
    expect(data(peek).error).toBe('NOT_FOUND');
    await expect(bob.client.readResource({ uri: `mediagen://generations/${made.generation_id}` })).rejects.toThrow();

    // Bob with Alice's session id: as unknown as any other id.
    const hijack = await fetch(url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'x-user': 'bob',
        'mcp-session-id': alice.transport.sessionId as string,
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(hijack.status).toBe(404);
    await alice.client.close();
    await bob.client.close();
  });
});

describe('confirmation before an expensive generate', () => {
  it('asks by elicitation: declined, nothing is billed; accepted, it is', async () => {
    const { url } = await app({ confirmAboveCredits: 5 });
    let answer: 'decline' | 'accept' = 'decline';
    const asked: string[] = [];
    const { client } = await httpClient(url, 'dave', { capabilities: { elicitation: {} } });
    client.setRequestHandler(ElicitRequestSchema, async (request) => {
      asked.push(request.params.message);
      return answer === 'accept' ? { action: 'accept', content: { confirm: true } } : { action: 'decline' };
    });
    const before = await bills(emu);
    const args = { model: 'image-fast', prompt: 'four of them', number_results: 4 }; // 16 credits
    const declined = data(await client.callTool({ name: 'generate', arguments: args }));
    expect(declined).toMatchObject({ status: 'not_submitted', reason: 'declined', credits_estimate: 16 });
    expect(asked[0]).toContain('16 credits');
    expect(await bills(emu)).toBe(before);

    answer = 'accept';
    const accepted = data(await client.callTool({ name: 'generate', arguments: args }));
    expect(accepted.generation_id).toEqual(expect.any(String));
    expect(await bills(emu)).toBe(before + 1);

    // Below the threshold nobody is asked.
    await client.callTool({ name: 'generate', arguments: { model: 'image-fast', prompt: 'cheap' } });
    expect(asked).toHaveLength(2);
    await client.close();
  });
});
