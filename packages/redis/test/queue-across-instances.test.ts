import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Gate, MediaGenClient } from '@mediagen/core';
import { createNodeHandler } from '@mediagen/core/node';
import { createMediaGenHandler } from '@mediagen/core/server';
import { SUBMIT_EVENTS } from '@mediagen/core/wire';
import { type RunningEmulator, startEmulator } from '@mediagen/emulator';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { RedisGateStore } from '../src/index';
import { cleanUp, connection, uniquePrefix } from './support/redis';

// Queue position in the browser across instances (issue 34): two instances of one app share the
// account gate on Redis; a browser's submit to either that waits for a slot is told its place in
// the one line (every instance's), over real HTTP, against the emulator. `[[hold]]` renders keep
// the gate full until the test lets one end, so nothing races a clock.

const API_KEY = 'svc_live_queue_instances_0123456789';
const ACCOUNT = 'acct_queue_instances';
const MAX_CONCURRENT = 5; // pro

let emu: RunningEmulator;
beforeAll(async () => {
  emu = await startEmulator({
    port: 0,
    config: { timeScale: 0.001, accounts: [{ id: ACCOUNT, tier: 'pro', balance: 1_000_000, keys: [{ key: API_KEY }] }] },
  });
});
afterAll(() => emu.close());
const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await emu.faults.release();
  await Promise.all(closers.splice(0).map((close) => close()));
  await cleanUp();
});

async function instance(prefix: string) {
  const client = new MediaGenClient({
    apiKey: API_KEY,
    baseUrl: emu.url,
    maxRetries: 0,
    gate: new Gate({ store: new RedisGateStore({ redis: connection(), prefix, pollMs: 50 }) }),
  });
  const handle = createNodeHandler(createMediaGenHandler({ client, basePath: '/api', allowAnonymous: true, onError: () => {} }));
  const server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise((resolve) => server.close(resolve)));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    client,
    /** A browser's submit that takes queue events; its events one by one. */
    async submit(prompt: string) {
      const res = await fetch(`${origin}/api/generations`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ model: 'image-fast', prompt }),
      });
      if (!res.headers.get('content-type')?.startsWith('text/event-stream'))
        throw new Error(`not a stream: ${res.status} ${await res.text()}`);
      return events(res.body!);
    },
  };
}

/** The stream's events, parsed: `{ event, data }`. */
function events(body: ReadableStream<Uint8Array>) {
  const reader = body.pipeThrough(new TextDecoderStream() as unknown as ReadableWritablePair<string, Uint8Array>).getReader();
  let buffer = '';
  return async (): Promise<{ event: string; data: any } | undefined> => {
    for (;;) {
      const end = buffer.indexOf('\n\n');
      if (end >= 0) {
        const block = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (block.startsWith(':')) continue; // a ping
        const event = /^event: (.*)$/m.exec(block)?.[1] ?? 'message';
        return { event, data: JSON.parse(/^data: (.*)$/m.exec(block)?.[1] ?? 'null') };
      }
      const chunk = await reader.read();
      if (chunk.done) return undefined;
      buffer += chunk.value;
    }
  };
}

describe('queue position across two instances sharing the Redis gate', () => {
  it('each browser is told its place in the one line, and moves up as slots free on another instance', async () => {
    const prefix = uniquePrefix('queue-instances');
    const [a, b] = [await instance(prefix), await instance(prefix)];
    const fillers: string[] = [];
    for (let i = 0; i < MAX_CONCURRENT; i++) {
      fillers.push((await a.client.generations.create({ model: 'image-fast', prompt: `[[hold]] filler ${i}` })).generation_id);
    }
    const onA = await a.submit('a heron, on instance a');
    expect(await onA()).toMatchObject({ event: SUBMIT_EVENTS.queue, data: { position: 1, limit: 'max_concurrent' } });
    const onB = await b.submit('an owl, on instance b');
    expect(await onB()).toMatchObject({ event: SUBMIT_EVENTS.queue, data: { position: 2, limit: 'max_concurrent' } });
    // One render ends; instance b's read of it frees its slot in the shared gate.
    expect(await emu.faults.release(1)).toBe(1);
    await expect.poll(async () => (await b.client.generations.get(fillers[0]!)).status, { timeout: 20_000 }).toBe('completed');
    // The first in line (on a) goes; b's submit moves up.
    expect(await onA()).toMatchObject({ event: SUBMIT_EVENTS.answer, data: { status: 202, body: { generation_id: expect.any(String) } } });
    expect(await onA()).toBeUndefined();
    expect(await onB()).toMatchObject({ event: SUBMIT_EVENTS.queue, data: { position: 1 } });
    expect(await emu.faults.release(1)).toBe(1);
    await expect.poll(async () => (await a.client.generations.get(fillers[1]!)).status, { timeout: 20_000 }).toBe('completed');
    expect(await onB()).toMatchObject({ event: SUBMIT_EVENTS.answer, data: { status: 202 } });
  });
});
