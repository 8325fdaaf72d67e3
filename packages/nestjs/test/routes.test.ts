import 'reflect-metadata';
import { memorySource } from '@mediagen/conformance';
import { type RunningEmulator, startEmulator } from '@mediagen/emulator';
import {
  type ArgumentsHost,
  type CanActivate,
  Catch,
  Controller,
  type ExceptionFilter,
  type ExecutionContext,
  Get,
  Injectable,
  SetMetadata,
  UseGuards,
} from '@nestjs/common';
import { APP_GUARD, Reflector } from '@nestjs/core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MediaGenModule, type MediaGenModuleRoutesOptions as MediaGenRoutesOptions } from '../src';
import { PLATFORMS, startApp } from './support/nest';

const KEY = 'svc_live_nest_routes';
const IS_PUBLIC = 'is-public';
const TOKENS: Record<string, string> = { 'token-ada': 'ada', 'token-bob': 'bob' };

/**
 * An app's own auth, the Nest way: a global guard that reads a bearer token and sets
 * `request.user` (as Passport does); routes marked public go through without one. The module's
 * routes take the user from there (`identify` gets Nest's request as its second argument).
 */
@Injectable()
class AuthGuard implements CanActivate {
  constructor(private readonly reflector: Reflector) {}
  canActivate(context: ExecutionContext): boolean {
    const req = context.switchToHttp().getRequest<{ headers: Record<string, string>; user?: { id: string } }>();
    const user = TOKENS[(req.headers.authorization ?? '').replace(/^Bearer /, '')];
    if (user) req.user = { id: user };
    return user !== undefined || this.reflector.getAllAndOverride(IS_PUBLIC, [context.getHandler(), context.getClass()]) === true;
  }
}

/** The app's own routes beside the module's, under the same prefix. */
@Controller('mediagen')
class OwnController {
  @Get('me')
  me() {
    return { own: true };
  }
}

/** A Sentry-like global filter: catches everything and answers 200. A refused body must never reach it. */
@Catch()
class SwallowEverythingFilter implements ExceptionFilter {
  static seen: unknown[] = [];
  catch(error: unknown, host: ArgumentsHost) {
    SwallowEverythingFilter.seen.push(error);
    const res = host.switchToHttp().getResponse();
    if (typeof res.code === 'function') res.code(200).send({ swallowed: true });
    else res.status(200).json({ swallowed: true });
  }
}

class NeverAllow implements CanActivate {
  canActivate() {
    return false;
  }
}

let emulator: RunningEmulator;
beforeAll(async () => {
  emulator = await startEmulator({
    port: 0,
    config: { timeScale: 0.001, accounts: [{ id: 'acct_routes', tier: 'pro', balance: 15_000, keys: [{ key: KEY }] }] },
  });
});
afterAll(async () => emulator?.close());
const apps: Array<{ close(): Promise<void> }> = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((a) => a.close()));
  SwallowEverythingFilter.seen = [];
});

const identify: MediaGenRoutesOptions['identify'] = (_request, req) => (req as { user?: { id: string } } | undefined)?.user?.id;

for (const platform of PLATFORMS) {
  describe(`${platform}: the JSON routes`, () => {
    for (const variant of ['forRoot', 'forRootAsync'] as const) {
      it(`${variant}: under the global prefix, behind the app's auth guard, scoped to the user the guard found`, async () => {
        const routes: MediaGenRoutesOptions = { basePath: 'mediagen', identify, source: memorySource() };
        const options = { apiKey: KEY, baseUrl: emulator.url, routes };
        const started = await startApp({
          platform,
          imports: [
            variant === 'forRoot' ? MediaGenModule.forRoot(options) : MediaGenModule.forRootAsync({ useFactory: async () => options }),
          ],
          controllers: [OwnController],
          providers: [{ provide: APP_GUARD, useClass: AuthGuard }],
          configure: (app) => app.setGlobalPrefix('api'),
        });
        apps.push(started);
        const call = (path: string, token?: string, init: RequestInit = {}) =>
          fetch(`${started.origin}/api/mediagen${path}`, {
            ...init,
            headers: { ...(token && { authorization: `Bearer ${token}` }), ...(init.headers as Record<string, string>) },
          });
        const submit = await call('/generations', 'token-ada', {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'image-fast', prompt: 'a kite' }),
        });
        expect(submit.status).toBe(202);
        const { generation_id: id } = (await submit.json()) as { generation_id: string };

        expect((await call(`/generations/${id}`, 'token-ada')).status).toBe(200);
        for (const path of [`/generations/${id}`, `/generations/${id}/events`]) {
          const res = await call(path, 'token-bob');
          expect([path, res.status]).toEqual([path, 404]);
          expect(await res.json()).toMatchObject({ error: 'NOT_FOUND' });
        }
        const list = async (token: string) =>
          ((await (await call('/generations', token)).json()) as { generations: { generation_id: string }[] }).generations.map(
            (g) => g.generation_id,
          );
        expect(await list('token-ada')).toEqual([id]);
        expect(await list('token-bob')).toEqual([]);
        // No token: the app's guard refuses before the routes run (they are not public here).
        expect((await call('/credits')).status).toBe(403);
        // The app's own route beside them, under the same path, is the app's.
        expect(await (await call('/me', 'token-ada')).json()).toEqual({ own: true });
        // Outside the global prefix: nothing.
        expect((await fetch(`${started.origin}/mediagen/credits`, { headers: { authorization: 'Bearer token-ada' } })).status).toBe(404);
      });

      it(`${variant}: routes.decorators let the routes past the app's global guard`, async () => {
        const routes: MediaGenRoutesOptions = { basePath: 'api', decorators: [SetMetadata(IS_PUBLIC, true)] };
        const options = { apiKey: KEY, baseUrl: emulator.url, routes };
        const started = await startApp({
          platform,
          imports: [variant === 'forRoot' ? MediaGenModule.forRoot(options) : MediaGenModule.forRootAsync({ useFactory: () => options })],
          providers: [{ provide: APP_GUARD, useClass: AuthGuard }],
        });
        apps.push(started);
        expect((await fetch(`${started.origin}/api/credits`)).status).toBe(200);
      });
    }

    it('forRoot: a guard given by class in routes.decorators runs on the routes', async () => {
      const started = await startApp({
        platform,
        imports: [
          MediaGenModule.forRoot({ apiKey: KEY, baseUrl: emulator.url, routes: { basePath: 'api', decorators: [UseGuards(NeverAllow)] } }),
        ],
      });
      apps.push(started);
      expect((await fetch(`${started.origin}/api/credits`)).status).toBe(403);
    });

    it('forRootAsync: a guard given by class in routes.decorators is refused at start-up rather than silently skipped', async () => {
      const module = MediaGenModule.forRootAsync({
        useFactory: () => ({ apiKey: KEY, routes: { basePath: 'api', decorators: [UseGuards(NeverAllow)] } }),
      });
      await expect(startApp({ platform, imports: [module] })).rejects.toThrow(/routes\.decorators adds guard NeverAllow by class/);
    });

    it('identify with neither a source nor authorize fails at start-up (every user could read every generation)', async () => {
      const module = MediaGenModule.forRoot({ apiKey: KEY, routes: { basePath: 'api', identify: () => 'ada' } });
      await expect(startApp({ platform, imports: [module] })).rejects.toThrow(/neither a source nor authorize/);
    });

    it('an app created without rawBody (no webhook) still submits: the parsed JSON body is passed on', async () => {
      const started = await startApp({
        platform,
        rawBody: false,
        imports: [MediaGenModule.forRoot({ apiKey: KEY, baseUrl: emulator.url, routes: { basePath: 'api', allowAnonymous: true } })],
      });
      apps.push(started);
      const res = await fetch(`${started.origin}/api/generations`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'image-fast', prompt: 'no raw body' }),
      });
      expect(res.status).toBe(202);
      expect(await res.json()).toMatchObject({ model: 'image-fast', status: 'pending' });
    });

    it("bodies the platform's parser refuses get the contract's 4xx, never the app's exception filters", async () => {
      const started = await startApp({
        platform,
        imports: [
          MediaGenModule.forRoot({
            apiKey: KEY,
            baseUrl: emulator.url,
            routes: { basePath: 'api', allowAnonymous: true, maxBodyBytes: 8 * 1024 * 1024 },
          }),
        ],
        configure: (app) => app.useGlobalFilters(new SwallowEverythingFilter()),
      });
      apps.push(started);
      const post = (body: string, contentType = 'application/json') =>
        fetch(`${started.origin}/api/generations`, { method: 'POST', headers: { 'content-type': contentType }, body });
      const broken = await post('{"model": ');
      expect(broken.status).toBe(422);
      expect(await broken.json()).toMatchObject({ error: 'INVALID_BODY', message: expect.any(String), next: expect.any(String) });
      // Over the platform parser's own limit (Express 100 kB, Fastify 1 MiB), below the routes' maxBodyBytes.
      const big = await post(JSON.stringify({ model: 'image-fast', prompt: 'x'.repeat(1_500_000) }));
      expect(big.status).toBe(413);
      expect(await big.json()).toMatchObject({ error: 'INVALID_BODY' });
      const xml = await post('<generate/>', 'application/xml');
      expect(xml.status).toBe(422);
      expect(await xml.json()).toMatchObject({ error: 'INVALID_BODY', details: { field: 'Content-Type' } });
      expect(SwallowEverythingFilter.seen).toEqual([]);
    });
  });
}
