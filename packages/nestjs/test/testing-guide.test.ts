// TESTING.md's NestJS example, as written there: its two files in one, the package imported from source.
import 'reflect-metadata';
import type { AddressInfo } from 'node:net';
import { MediaGenClient, type WebhookEvent } from '@mediagen/core';
import { createEmulator } from '@mediagen/emulator';
import { Body, Controller, Headers, HttpCode, type INestApplication, Injectable, Post } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { MediaGenModule, OnGenerationEvent } from '../src';

// src/renders.ts
@Controller('generations')
class RendersController {
  constructor(private readonly mediagen: MediaGenClient) {}

  @Post()
  @HttpCode(202)
  submit(@Body() body: { prompt: string }, @Headers('idempotency-key') idempotencyKey?: string) {
    return this.mediagen.generations.create({ model: 'image-fast', prompt: body.prompt }, { idempotencyKey });
  }
}

@Injectable()
class RenderEvents {
  readonly received: WebhookEvent[] = [];

  @OnGenerationEvent('*')
  record(event: WebhookEvent) {
    this.received.push(event);
  }
}

// test/renders.test.ts

const KEY = 'svc_live_test';
const SECRET = 'whsec_test';
let appUrl = '';
const emu = createEmulator({
  config: {
    timeScale: 0.001,
    accounts: [
      {
        id: 'acct_test',
        tier: 'pro',
        balance: 100,
        keys: [{ key: KEY }],
        webhooks: [{ url: 'http://app.test/webhooks/mediagen', secret: SECRET }],
      },
    ],
  },
  webhookFetch: async (delivery) =>
    fetch(`${appUrl}/webhooks/mediagen`, { method: 'POST', headers: delivery.headers, body: await delivery.arrayBuffer() }),
});
let app: INestApplication;

beforeAll(async () => {
  const moduleRef = await Test.createTestingModule({
    imports: [
      MediaGenModule.forRoot({ apiKey: KEY, baseUrl: emu.url, fetch: emu.fetch, webhook: { path: 'webhooks/mediagen', secrets: SECRET } }),
    ],
    controllers: [RendersController],
    providers: [RenderEvents],
  }).compile();
  app = moduleRef.createNestApplication({ rawBody: true });
  await app.listen(0, '127.0.0.1');
  appUrl = `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
});
afterAll(async () => {
  await app.close();
  await emu.close();
});

const submit = (prompt: string, idempotencyKey: string) =>
  fetch(`${appUrl}/generations`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'idempotency-key': idempotencyKey },
    body: JSON.stringify({ prompt }),
  });

it('POST /generations answers 202; a double click bills once', async () => {
  const first = await submit('a fox', 'click-1');
  expect(first.status).toBe(202);
  const { generation_id } = await first.json();
  expect((await (await submit('a fox', 'click-1')).json()).generation_id).toBe(generation_id);
  const { ledger } = await emu.accounts.get('acct_test');
  expect(ledger.filter((row) => row.type === 'reserve' && row.generation_id === generation_id)).toHaveLength(1);
});

it('@OnGenerationEvent methods get the signed deliveries, completed and failed', async () => {
  const ok = (await (await submit('a lighthouse', 'click-2')).json()).generation_id;
  const bad = (await (await submit('x [[fail:model_unavailable]]', 'click-3')).json()).generation_id;
  await Promise.all([emu.deliveries.settled(ok), emu.deliveries.settled(bad)]);
  const { received } = app.get(RenderEvents);
  expect(received.find((e) => e.data.generation_id === ok)?.type).toBe('generation.completed');
  expect(received.find((e) => e.data.generation_id === bad)?.type).toBe('generation.failed');
});
