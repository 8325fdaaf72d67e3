import 'reflect-metadata';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { LedgerGeneration } from '@mediagen/core/ledger';
import { type RunningEmulator, startEmulator, type WebhookConfig } from '@mediagen/emulator';
import type { INestApplication, LoggerService } from '@nestjs/common';
import { Test } from '@nestjs/testing';
import { AppModule } from '../../src/app.module.js';
import { LEDGER_CLOCK } from '../../src/tokens.js';

/** A generation as `GET /api/generations` lists it (the ledger's view). */
export type ListedGeneration = LedgerGeneration & { generation_id: string };

export const KEY = 'svc_live_nest_sample_test';
export const SECRET = 'whsec_nest_sample_new';
export const OLD_SECRET = 'whsec_nest_sample_old';

export interface StackOptions {
  /** The app's configured secrets. Default `[SECRET]`. */
  appSecrets?: string[];
  /** The secrets of the emulator's endpoints pointing at the app (one endpoint each); `[]` sends no webhook. Default `[SECRET]`. */
  endpointSecrets?: string[];
  /** The emulator's time scale. Default 0.005: an image renders in well under a second. */
  timeScale?: number;
  /** Serve the app over HTTPS with this key and certificate (as `main.ts` would with `httpsOptions`). */
  https?: { key: string; cert: string };
}

/**
 * A port free now, for a server that must be named before it listens (the emulator needs the app's
 * webhook URL first). Drawn below Linux's ephemeral range (32768+), where the kernel never puts the
 * local end of an outgoing connection: a port the kernel hands out for `listen(0)` can be taken by
 * any of the many connections a loaded machine opens before the app binds it (EADDRINUSE).
 */
async function freePort(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    const server = createServer();
    const bound = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false));
      server.listen(port, '127.0.0.1', () => resolve(true));
    });
    if (!bound) continue;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    return port;
  }
}

/** The sample app (as `main.ts` creates it) and a real emulator on free ports, the emulator's webhooks pointing at the app. */
export async function startStack(options: StackOptions = {}) {
  const port = await freePort();
  const origin = `${options.https ? 'https' : 'http'}://127.0.0.1:${port}`;
  const webhookUrl = `${origin}/api/webhooks/mediagen`;
  const webhooks: WebhookConfig[] = (options.endpointSecrets ?? [SECRET]).map((secret) => ({ url: webhookUrl, secret, enabled: true }));
  const config = {
    timeScale: options.timeScale ?? 0.005,
    accounts: [{ id: 'acct_sample', tier: 'pro' as const, balance: 15_000, keys: [{ key: KEY }], webhooks }],
  };
  let emulator: RunningEmulator = await startEmulator({ port: 0, config });
  const emulatorUrl = emulator.url;
  /** The emulator's clock offset (`/__emulator/clock`), which the app's ledger reads its time with. */
  let clockOffsetMs = 0;
  const dir = mkdtempSync(join(tmpdir(), 'nest-sample-'));
  const settings = {
    MEDIAGEN_API_KEY: KEY,
    MEDIAGEN_BASE_URL: emulatorUrl,
    MEDIAGEN_WEBHOOK_SECRET: (options.appSecrets ?? [SECRET]).join(','),
    DATA_DIR: dir,
  };

  /** What the app logged, one `level context: message` line each (printed nowhere). */
  const logs: string[] = [];
  const line =
    (level: string) =>
    (message: unknown, ...rest: unknown[]) => {
      logs.push(`${level} ${String(rest.at(-1) ?? '')}: ${String(message)}`);
    };
  const logger: LoggerService = {
    log: line('log'),
    warn: line('warn'),
    error: line('error'),
    debug: line('debug'),
    verbose: line('verbose'),
  };

  let app: INestApplication | undefined;
  /** Starts the app (again) as `main.ts` does: a restart keeps the data directory. */
  const startApp = async () => {
    const moduleRef = await Test.createTestingModule({ imports: [AppModule.forRoot(settings)] })
      .overrideProvider(LEDGER_CLOCK)
      .useValue(() => Date.now() + clockOffsetMs)
      .compile();
    app = moduleRef.createNestApplication({
      rawBody: true,
      logger,
      forceCloseConnections: true,
      ...(options.https && { httpsOptions: options.https }),
    });
    app.enableShutdownHooks();
    await app.listen(port, '127.0.0.1');
  };
  const stopApp = async () => {
    await app?.close();
    app = undefined;
  };
  await startApp();

  /**
   * A browser's view of the app: it keeps the cookie the app sets on first contact (its user, see
   * `src/user.ts`) and sends it back, as a browser does. Each call to `browser()` is another user.
   */
  const browser = () => {
    let cookie: string | undefined;
    const json = async <T = any>(path: string, init: RequestInit = {}): Promise<{ status: number; body: T; headers: Headers }> => {
      const request = () =>
        fetch(origin + path, { ...init, headers: { ...(init.headers as Record<string, string>), ...(cookie && { cookie }) } });
      // After a restart, a kept-alive socket to the old server may be reused once: like a browser,
      // resend a GET that failed that way (never a POST).
      const res = await request().catch((error: unknown) => {
        if ((init.method ?? 'GET') !== 'GET') throw error;
        return request();
      });
      cookie ??= res.headers.getSetCookie()[0]?.split(';')[0];
      const text = await res.text();
      return { status: res.status, body: (text ? JSON.parse(text) : undefined) as T, headers: res.headers };
    };
    return {
      json,
      /** The cookie this browser was given (`name=value`), once it has made a request. */
      cookie: () => cookie,
      submit: (params: Record<string, unknown>, headers: Record<string, string> = {}) =>
        json('/api/generations', {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...headers },
          body: JSON.stringify(params),
        }),
      list: async () => (await json<{ generations: ListedGeneration[] }>('/api/generations')).body.generations,
    };
  };
  const you = browser();

  return {
    origin,
    webhookUrl,
    logs,
    get emulator() {
      return emulator;
    },
    ...you,
    browser,
    restart: async () => {
      await stopApp();
      await startApp();
    },
    stopApp,
    startApp,
    /** A new emulator process on the same address: everything the old one knew (generations, link key) is gone. */
    restartEmulator: async () => {
      await emulator.close();
      emulator = await startEmulator({ port: Number(new URL(emulatorUrl).port), config });
      clockOffsetMs = 0;
    },
    /** Moves the emulator's clock (link expiry is on it) and the app's ledger clock with it. */
    advanceClock: async (advanceMs: number) => {
      const res = await fetch(`${emulator.url}/__emulator/clock`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ advanceMs }),
      });
      if (!res.ok) throw new Error(`clock: ${res.status}`);
      const health = (await (await fetch(`${emulator.url}/__emulator/health`)).json()) as { clock_offset_ms: number };
      clockOffsetMs = health.clock_offset_ms;
    },
    deliveries: async (generationId: string) =>
      ((await (await fetch(`${emulator.url}/__emulator/deliveries?generation_id=${generationId}`)).json()) as { deliveries: unknown })
        .deliveries as Array<{
        attempt: number;
        status: number | null;
        outcome: string;
        url: string;
      }>,
    async close() {
      await stopApp();
      await emulator.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export type Stack = Awaited<ReturnType<typeof startStack>>;

/**
 * Polls `check` until it returns a value (not undefined/false). No deadline of its own: the
 * test's timeout bounds it, so a loaded machine makes it slower, never wrong.
 */
export async function eventually<T>(check: () => Promise<T | undefined | false>): Promise<T> {
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}
